// Helpers shared by the MCP integration tests: the fixture server, the process table, and
// what the mock LLM was sent (tool names offered, tool results shown to the model).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { McpStdioServerConfig, SDKMessage } from "../src/index.js";

export const TEST_SERVER = resolve("test/fixtures/mcp-test-server.mjs");

/** The fixture server over stdio; `flags` as its header describes, a marker to find it in /proc. */
export function testServer(...flags: string[]): McpStdioServerConfig {
  return { command: process.execPath, args: [TEST_SERVER, ...flags] };
}

/** A string no other process has in its command line. */
export function uniqueMarker(label: string): string {
  return `gyre-${label}-${process.pid}-${Math.random().toString(36).slice(2)}`;
}

/** Pids of live processes whose command line contains `marker`. */
export function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** Whether a process runs (a zombie, dead but not yet reaped by its parent, does not count). */
export function isRunning(pid: number): boolean {
  if (!existsSync(`/proc/${pid}`)) return false;
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Waits until `condition` holds, checking every 50 ms, for at most `limitMs`. */
export async function waitUntil(condition: () => boolean | Promise<boolean>, limitMs = 15_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${limitMs} ms`);
    await new Promise((done) => setTimeout(done, 50));
  }
}

export function initOf(messages: SDKMessage[]) {
  const init = messages[0];
  if (init?.type !== "system" || init.subtype !== "init") throw new Error("no init message");
  return init;
}

export function text(content: unknown): string {
  return typeof content === "string" ? content : JSON.stringify(content);
}

/** The names of the tools a model request offered (Anthropic, OpenAI Responses and Chat shapes). */
export function offeredTools(body: unknown): string[] {
  const tools = (body as { tools?: Array<{ name?: string; function?: { name: string } }> }).tools ?? [];
  return tools.map((tool) => tool.name ?? tool.function?.name ?? "?");
}

/** Every tool result a model request carried, as text (Anthropic `tool_result`, OpenAI function outputs). */
export function sentToolResults(body: unknown): string[] {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (typeof value !== "object" || value === null) return;
    const node = value as Record<string, unknown>;
    if (node.type === "tool_result") found.push(text(node.content));
    else if (node.type === "function_call_output") found.push(text(node.output));
    else if (node.role === "tool") found.push(text(node.content));
    else Object.values(node).forEach(visit);
  };
  visit(body);
  return found;
}
