import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { resolve } from "node:path";
import type { SDKMessage } from "../src/index.js";
import { compatRequire } from "./compat-peers.js";

export const CLI = resolve("dist/bin/gyre.js");

/** The part of playwright-core the browser tests use (it is a compat peer, without types here). */
export interface Browser {
  newContext(options?: {
    viewport?: { width: number; height: number };
    colorScheme?: "light" | "dark";
  }): Promise<BrowserContext>;
  close(): Promise<void>;
}
export interface BrowserContext {
  newPage(): Promise<Page>;
  newCDPSession(page: Page): Promise<{ send(method: string, params?: unknown): Promise<unknown> }>;
  close(): Promise<void>;
}
export interface Locator {
  click(): Promise<void>;
  fill(value: string): Promise<void>;
  count(): Promise<number>;
  first(): Locator;
  last(): Locator;
  getByTestId(id: string): Locator;
  getByText(text: string | RegExp): Locator;
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
  waitForFunction(fn: (arg: number) => boolean, arg: number, options?: { timeout?: number }): Promise<unknown>;
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
