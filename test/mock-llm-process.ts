import { type ChildProcess, spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";

const CLI = resolve("dist/bin/gyre.js");

/** A `gyre mock-llm` process (the built CLI) and the base URL its clients use. */
export interface MockLLMProcess {
  child: ChildProcess;
  baseURL: string;
}

/** Starts `gyre mock-llm` on the script file at `scriptPath`, and waits for the line that gives its address. */
export async function startMockProcess(scriptPath: string): Promise<MockLLMProcess> {
  const child = spawn(process.execPath, [CLI, "mock-llm", "--script", scriptPath, "--port", "0"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    const match = /listening on (http:\/\/\S+)/.exec(line);
    if (match) return { child, baseURL: `${match[1]}/v1` };
  }
  throw new Error("gyre mock-llm exited without printing its address");
}

/** Writes `script` into `dir` (a file of its own) and starts `gyre mock-llm` on it. */
export async function startMockWithScript(script: unknown, dir: string): Promise<MockLLMProcess> {
  const path = join(dir, `script-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(path, JSON.stringify(script));
  return startMockProcess(path);
}
