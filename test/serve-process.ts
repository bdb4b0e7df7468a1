import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { createInterface } from "node:readline";
import { cliEnv } from "./helpers.js";

/** `gyre serve` as users start it: the built CLI, in a process of its own. */
export const CLI = resolve("dist/bin/gyre.js");

/** Fails a test file early when the CLI was not built. */
export function requireBuiltCli(): void {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
}

/** Processes started by a test, killed (SIGKILL) by {@link killAll} after it. */
const children: ChildProcess[] = [];

/** Has {@link killAll} kill `child` too (a process a test started by other means). */
export function track(child: ChildProcess): ChildProcess {
  children.push(child);
  return child;
}

export function killAll(): void {
  for (const child of children.splice(0))
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
}

/** Starts `gyre serve --port 0 ARGS` and waits for the line with its URL (`…/v1`). */
export async function startServe(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", ...args], {
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    const match = /listening on (http:\/\/\S+)/.exec(line);
    if (match?.[1]) return { child, url: match[1] };
  }
  throw new Error("gyre serve exited without printing its URL");
}

/** Runs `gyre serve --port 0 ARGS` that is expected to stop by itself: its exit code and all it printed. */
export async function serveUntilExit(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", ...args], {
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (chunk) => (output += chunk));
  child.stderr?.on("data", (chunk) => (output += chunk));
  const code = await exitOf(child);
  return { code, output };
}

export function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.once("exit", (code) => done(code)));
}
