import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from "vitest";
import { folderWithPeer } from "./compat-peers.js";
import { startMockWithScript } from "./mock-llm-process.js";

/**
 * Gyre's messages follow the Claude Agent SDK's `SDKMessage` so programs written for it read
 * them unchanged. This records real `gyre run --output-format stream-json` runs against the
 * mock LLM and type-checks every line against the SDK's own declarations, so a drift in any
 * field (a value outside the SDK's union, a required field missing) fails here.
 *
 * The SDK (test/compat/claude-agent-sdk, pinned) is installed by `npm run compat:install`
 * rather than as a dev dependency, without its optional per-platform package (a ~360 MB
 * Claude Code binary): only its `.d.ts` files are used.
 */
const run = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");
const TSC = resolve("node_modules/typescript/bin/tsc");

/** One `gyre run` in stream-json, every line parsed. */
async function record(script: unknown, dir: string, args: string[]): Promise<Array<Record<string, unknown>>> {
  const mock = await startMockWithScript(script, dir);
  try {
    const { stdout } = await run(
      process.execPath,
      [CLI, "run", "Say hi, then write a file.", "--output-format", "stream-json", "--cwd", dir, ...args],
      {
        env: {
          PATH: process.env.PATH,
          HOME: dir,
          GYRE_HOME: join(dir, ".gyre-home"),
          ANTHROPIC_API_KEY: "mock",
          ANTHROPIC_BASE_URL: mock.baseURL,
        },
      },
    ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? "" }));
    return stdout
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  } finally {
    mock.child.kill();
  }
}

/**
 * A JSON value as a TypeScript literal whose every object is spread (`{ ...{ … } }`): TypeScript
 * still checks every field the SDK declares (required fields, literal unions, nested shapes)
 * but not the fields Gyre adds (`gyre_version`, `cost_usd`, `provider_metadata`, …).
 */
function literal(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(literal).join(", ")}]`;
  if (typeof value !== "object" || value === null) return JSON.stringify(value);
  const fields = Object.entries(value).map(([key, field]) => `${JSON.stringify(key)}: ${literal(field)}`);
  return `{ ...{ ${fields.join(", ")} } }`;
}

describe("recorded stream-json runs type-check as the Claude Agent SDK's SDKMessage", () => {
  let dir: string;
  const recorded: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "gyre-sdk-types-"));
    const toolRun = {
      mode: "sequential",
      turns: [
        {
          content: [
            { type: "thinking", thinking: "A greeting first." },
            { type: "text", text: "Let me say hi." },
            { type: "tool_use", name: "Bash", input: { command: "echo hi", description: "Say hi" } },
          ],
        },
        { content: [{ type: "tool_use", name: "Write", input: { file_path: "/etc/gyre-nope", content: "x" } }] },
        { content: [{ type: "text", text: "Said hi; writing there is not allowed." }] },
      ],
    };
    // A PostToolUse command hook that fails: its report is a system/hook_response message.
    mkdirSync(join(dir, ".gyre"), { recursive: true });
    writeFileSync(
      join(dir, ".gyre", "settings.json"),
      JSON.stringify({
        hooks: {
          PostToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "echo audit down >&2; exit 1" }] }],
        },
      }),
    );
    recorded.push(
      ...(await record(toolRun, dir, ["--include-partial-messages", "--allowed-tools", "Bash", "--max-turns", "5"])),
    );
    // An error result: the turn limit ends the run while the model still calls tools.
    const endless = {
      mode: "sequential",
      turns: [{ content: [{ type: "tool_use", name: "Bash", input: { command: "true" } }] }],
    };
    recorded.push(...(await record(endless, dir, ["--allowed-tools", "Bash", "--max-turns", "1"])));
  }, 180_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("covers the message kinds a run produces", () => {
    const kinds = new Set(recorded.map((m) => [m.type, m.subtype].filter(Boolean).join("/")));
    const init = recorded.find((m) => m.subtype === "init");
    expect(init?.agents).toEqual(["general-purpose"]);
    for (const kind of [
      "system/init",
      "system/hook_response",
      "stream_event",
      "assistant",
      "user",
      "result/success",
      "result/error_max_turns",
    ]) {
      expect(kinds).toContain(kind);
    }
    const denied = recorded.find((m) => m.type === "result" && m.subtype === "success") as {
      permission_denials: unknown[];
    };
    expect(denied.permission_denials).toHaveLength(1);
  });

  it("every line is assignable to SDKMessage", async () => {
    // A folder of the check's own whose node_modules is the installed SDK's.
    const check = folderWithPeer("claude-agent-sdk", "gyre-sdk-types-check-");
    onTestFinished(() => rmSync(check, { recursive: true, force: true }));
    const lines = recorded.map((message, i) => `export const m${i}: SDKMessage = ${literal(message)};`);
    const source = ['import type { SDKMessage } from "@anthropic-ai/claude-agent-sdk";', ...lines].join("\n");
    writeFileSync(join(check, "recorded.ts"), `${source}\n`);
    writeFileSync(
      join(check, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          // The SDK's own declarations are not ours to check; our recorded messages are.
          skipLibCheck: true,
        },
        files: ["recorded.ts"],
      }),
    );
    const result = await run(process.execPath, [TSC, "-p", check], { cwd: check }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe("");
  }, 120_000);

  it("a program written against the SDK's SDKMessage compiles against Gyre's", async () => {
    // The same source twice: once over the SDK's declarations (it is a valid SDK program), once
    // over Gyre's built ones. Each line builds or reads a message as the SDK declares it.
    const program = (from: string) =>
      [
        `import type { Options, SDKMessage, SDKUserMessage, SdkPluginConfig } from ${JSON.stringify(from)};`,
        // Skills and plugins as the SDK's options take them, and a subagent's preloaded skills.
        'export const plugins: SdkPluginConfig[] = [{ type: "local", path: "./kit", skipMcpDiscovery: false }];',
        'export const options: Options = { skills: ["pdf", "kit:lint"], plugins, agents: { r: { description: "d", prompt: "p", skills: ["pdf"] } } };',
        'export const all: Options = { skills: "all" };',
        // A message streamed in as the prompt may leave out its uuid.
        'export const streamed: SDKUserMessage = { type: "user", message: { role: "user", content: "hi" }, parent_tool_use_id: null, session_id: "" };',
        "export function describe(message: SDKMessage): string {",
        // An error result always carries errors: string[].
        '  if (message.type === "result" && message.subtype !== "success") return message.errors.join("; ");',
        // system/init may list the agents.
        '  if (message.type === "system" && message.subtype === "init") return [...(message.agents ?? []), ...message.skills, ...message.plugins.map((p) => p.name + p.path)].join(", ");',
        '  return "";',
        "}",
      ].join("\n");
    const check = folderWithPeer("claude-agent-sdk", "gyre-sdk-program-check-");
    onTestFinished(() => rmSync(check, { recursive: true, force: true }));
    writeFileSync(join(check, "sdk.ts"), `${program("@anthropic-ai/claude-agent-sdk")}\n`);
    writeFileSync(join(check, "gyre.ts"), `${program(resolve("dist/index.js"))}\n`);
    writeFileSync(
      join(check, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: "es2022",
          module: "nodenext",
          moduleResolution: "nodenext",
          skipLibCheck: true,
        },
        files: ["sdk.ts", "gyre.ts"],
      }),
    );
    const result = await run(process.execPath, [TSC, "-p", check], { cwd: check }).then(
      () => "",
      (error: { stdout?: string }) => error.stdout ?? String(error),
    );
    expect(result).toBe("");
  }, 120_000);
});
