import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import type { SDKMessage } from "../src/index.js";
import { compatRequire } from "./compat-peers.js";

export const CLI = resolve("dist/bin/gyre.js");

/** The part of playwright-core the browser tests use (it is a compat peer, without types here). */
export interface Browser {
  newContext(options?: { viewport?: { width: number; height: number }; colorScheme?: "light" | "dark" }): Promise<BrowserContext>;
  close(): Promise<void>;
}
export interface BrowserContext {
  newPage(): Promise<Page>;
  newCDPSession(page: Page): Promise<{ send(method: string, params?: unknown): Promise<unknown> }>;
  close(): Promise<void>;
}
export interface Locator {
  click(): Promise<void>;
  count(): Promise<number>;
  first(): Locator;
  last(): Locator;
  getByTestId(id: string): Locator;
  nth(index: number): Locator;
  filter(options: { hasText: string | RegExp }): Locator;
  locator(selector: string): Locator;
  textContent(): Promise<string | null>;
  innerText(): Promise<string>;
  allInnerTexts(): Promise<string[]>;
  waitFor(options?: { state?: "visible" | "attached" | "detached" | "hidden"; timeout?: number }): Promise<void>;
  screenshot(options: { path: string }): Promise<Buffer>;
}
export interface Page {
  goto(url: string): Promise<{ status(): number } | null>;
  locator(selector: string): Locator;
  getByTestId(id: string): Locator;
  keyboard: { press(key: string): Promise<void> };
  screenshot(options: { path: string; fullPage?: boolean }): Promise<Buffer>;
  evaluate<T>(fn: string | (() => T)): Promise<T>;
  waitForFunction(fn: string | (() => boolean), arg?: unknown, options?: { timeout?: number }): Promise<unknown>;
  context(): BrowserContext;
  url(): string;
}

/** Debian's chromium, driven by playwright-core from the compat cache (one browser per test file). */
export async function launchChromium(): Promise<Browser> {
  const { chromium } = compatRequire("playwright-core", "playwright-core") as {
    chromium: { launch(options: unknown): Promise<Browser> };
  };
  return chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
}

/** A running `gyre ui`, with the address it printed. */
export interface UiProcess {
  url: string;
  origin: string;
  token: string;
  stop(): Promise<void>;
}

/** Starts the built `gyre ui --port 0` with `env` and waits for the address it prints. */
export async function startUiProcess(env: NodeJS.ProcessEnv, args: string[] = []): Promise<UiProcess> {
  const child: ChildProcess = spawn(process.execPath, [CLI, "ui", "--port", "0", ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const url = await new Promise<string>((resolvePromise, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const match = /open (http:\/\/127\.0\.0\.1:\d+\/\?token=[0-9a-f]+)/.exec(out);
      if (match?.[1]) resolvePromise(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`gyre ui exited with ${code}: ${err}`)));
  });
  const parsed = new URL(url);
  return {
    url,
    origin: parsed.origin,
    token: parsed.searchParams.get("token") ?? "",
    stop: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGTERM");
      await once(child, "exit");
    },
  };
}

/** The session id of a `gyre run --output-format json`'s output. */
export function sessionIdOf(stdout: string): string {
  const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as SDKMessage;
  return result.session_id;
}

/**
 * A long session written straight into a store through its API: `turns` model turns of
 * `callsPerTurn` Read calls each, with their results, then a result message (what a long agent
 * run leaves; the page must open it quickly).
 */
export function largeSession(
  sessionId: string,
  cwd: string,
  turns: number,
  callsPerTurn: number,
): SDKMessage[] {
  const usage = { input_tokens: 1200, output_tokens: 300, cache_read_input_tokens: 800, cache_creation_input_tokens: 0 };
  let n = 0;
  const uuid = () => `00000000-0000-4000-8000-${String(++n).padStart(12, "0")}`;
  const messages: SDKMessage[] = [
    {
      type: "system",
      subtype: "init",
      uuid: uuid(),
      session_id: sessionId,
      apiKeySource: "none",
      claude_code_version: "2.0.0",
      cwd,
      tools: ["Read"],
      mcp_servers: [],
      model: "claude-sonnet-4-5",
      permissionMode: "default",
      slash_commands: [],
      output_style: "default",
      skills: [],
      plugins: [],
      gyre_version: "0.0.0",
    },
    {
      type: "user",
      uuid: uuid(),
      session_id: sessionId,
      message: { role: "user", content: "Read every file of the project, five at a time." },
      parent_tool_use_id: null,
    },
  ];
  for (let turn = 0; turn < turns; turn++) {
    const calls = Array.from({ length: callsPerTurn }, (_, k) => ({
      type: "tool_use" as const,
      id: `toolu_${turn}_${k}`,
      name: "Read",
      input: { file_path: `${cwd}/src/file-${turn}-${k}.ts` },
    }));
    messages.push({
      type: "assistant",
      uuid: uuid(),
      session_id: sessionId,
      parent_tool_use_id: null,
      cost_usd: 0.0123,
      message: {
        id: `msg_${turn}`,
        type: "message",
        role: "assistant",
        model: "claude-sonnet-4-5",
        content: [{ type: "text", text: `Turn ${turn + 1}: reading **five** more files with \`Read\`.` }, ...calls],
        stop_reason: "tool_use",
        stop_sequence: null,
        usage,
      },
    });
    messages.push({
      type: "user",
      uuid: uuid(),
      session_id: sessionId,
      isSynthetic: true,
      parent_tool_use_id: null,
      message: {
        role: "user",
        content: calls.map((call) => ({
          type: "tool_result" as const,
          tool_use_id: call.id,
          content: `export const value = ${JSON.stringify(call.id)};\n`.repeat(20),
        })),
      },
    });
  }
  return messages;
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string } }[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Time the page spent running JavaScript (garbage collection included) while `work` ran, from
 * V8's sampling profiler (CDP Profiler, 100 µs samples): every sample that is neither idle nor
 * the browser's own work. Chromium's `ScriptDuration` metric misses most of a page's script in
 * headless mode, so it is not used. Also Chromium's `TaskDuration` (main-thread busy time:
 * script, style, layout) over the same span.
 */
export async function measureScript(
  cdp: { send(method: string, params?: unknown): Promise<unknown> },
  work: () => Promise<void>,
): Promise<{ scriptMs: number; mainThreadMs: number }> {
  const taskSeconds = async () =>
    ((await cdp.send("Performance.getMetrics")) as { metrics: { name: string; value: number }[] }).metrics.find(
      (metric) => metric.name === "TaskDuration",
    )?.value ?? 0;
  await cdp.send("Performance.enable");
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 100 });
  const tasksBefore = await taskSeconds();
  await cdp.send("Profiler.start");
  await work();
  const { profile } = (await cdp.send("Profiler.stop")) as { profile: CpuProfile };
  const tasksAfter = await taskSeconds();
  const names = new Map(profile.nodes.map((node) => [node.id, node.callFrame.functionName]));
  let micros = 0;
  profile.samples.forEach((sample, index) => {
    const name = names.get(sample);
    if (name !== "(idle)" && name !== "(program)") micros += profile.timeDeltas[index] ?? 0;
  });
  return { scriptMs: micros / 1000, mainThreadMs: (tasksAfter - tasksBefore) * 1000 };
}
