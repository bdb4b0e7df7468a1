// Codex CLI (`@openai/codex`, the real binary from npm, installed by `npm run compat:install`)
// against a real `gyre serve` whose upstream is the scripted mock LLM. The script makes the
// calls; Codex executes them with its own tools (exec_command runs a shell, apply_patch edits
// files) and sends the results back through the Responses API, as it does against OpenAI.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/server/index.js";
import { type MockScript, mockTurn } from "../src/testing/index.js";
import { compatBin } from "./compat-peers.js";
import { upstreamBody, withServer } from "./serve-support.js";

const KEY = "codex-test-key-123456";
// A slug of Codex's bundled catalog: it gets the apply_patch tool (an unknown slug does not).
const MODEL = "gpt-5.5";
const serveOptions = { apiKeys: [KEY], models: [{ name: MODEL, model: "openai/gpt-5" }] };

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratch.push(dir);
  return dir;
}

/** Runs `codex exec TASK` in `cwd` with a CODEX_HOME whose provider is the server; resolves with its exit and output. */
async function codexExec(server: RunningServer, cwd: string, task: string) {
  const home = tempDir("gyre-codex-home-");
  writeFileSync(
    join(home, "config.toml"),
    [
      `model = "${MODEL}"`,
      `model_provider = "gyre"`,
      `[model_providers.gyre]`,
      `name = "Gyre"`,
      `base_url = "${server.url}/v1"`,
      `env_key = "GYRE_KEY"`,
      `wire_api = "responses"`,
      "",
    ].join("\n"),
  );
  // Codex's own sandbox needs namespaces the test machine may not give: the test is about the wire.
  const child = spawn(
    compatBin("codex", "codex"),
    ["exec", "--skip-git-repo-check", "--dangerously-bypass-approvals-and-sandbox", task],
    {
      cwd,
      env: { ...process.env, HOME: home, CODEX_HOME: home, GYRE_KEY: KEY },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((done) => child.on("close", done));
  return { code, stdout, stderr };
}

/** Every `*_output` item Codex sent back in the upstream request `index`, as text. */
function outputsSent(body: Record<string, unknown>): string {
  const input = (body.input ?? []) as { type?: string }[];
  return JSON.stringify(input.filter((item) => item.type?.endsWith("_output")));
}

describe("Codex CLI against gyre serve", () => {
  it("completes a multi-step task with its own shell tool (exec_command)", async () => {
    const work = tempDir("gyre-codex-work-");
    writeFileSync(join(work, "notes.txt"), "alpha\n");
    const script: MockScript = {
      turns: [
        mockTurn.toolUse("exec_command", { cmd: "wc -l < notes.txt" }),
        mockTurn.toolUse("exec_command", { cmd: "tr a-z A-Z < notes.txt > upper.txt && echo wrote-upper" }),
        mockTurn.text("notes.txt has one line; upper.txt holds it in capitals."),
      ],
    };
    await withServer(
      script,
      async ({ server, mock }) => {
        const run = await codexExec(
          server,
          work,
          "Count the lines of notes.txt, then write it in capitals to upper.txt",
        );
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout.trim()).toBe("notes.txt has one line; upper.txt holds it in capitals.");
        expect(readFileSync(join(work, "upper.txt"), "utf8")).toBe("ALPHA\n");
        expect(mock.requests).toHaveLength(3);
        const sentTools = (upstreamBody(mock, 0).tools ?? []) as { type?: string; name?: string }[];
        expect(sentTools).toContainEqual(expect.objectContaining({ type: "custom", name: "apply_patch" }));
        // Each step's shell output went back to the model through gyre serve.
        expect(outputsSent(upstreamBody(mock, 1))).toMatch(/(^|[^0-9])1\\n/);
        expect(outputsSent(upstreamBody(mock, 2))).toContain("wrote-upper");
        // Codex's hosted tools (web_search, tool_search, ...) are not passed to the upstream; its functions are.
        const names = ((upstreamBody(mock, 0).tools ?? []) as { name?: string }[]).map((tool) => tool.name);
        expect(names).toContain("exec_command");
      },
      serveOptions,
    );
  }, 120_000);

  // Needs `custom` tool support in the server (apply_patch is a freeform tool), added by the
  // serve-tools branch: on a server without it, Codex's apply_patch is dropped and this fails.
  it("edits a file with apply_patch after reading it with the shell, and answers", async () => {
    const work = tempDir("gyre-codex-work-");
    writeFileSync(join(work, "greeting.txt"), "hello world\n");
    const patch = [
      "*** Begin Patch",
      "*** Update File: greeting.txt",
      "@@",
      "-hello world",
      "+hello gyre",
      "*** End Patch",
    ].join("\n");
    const script: MockScript = {
      turns: [
        mockTurn.toolUse("exec_command", { cmd: "cat greeting.txt" }),
        // As OpenAI answers: a custom_tool_call, since gyre serve passes apply_patch on as a custom tool.
        mockTurn.customToolCall("apply_patch", patch),
        mockTurn.text("greeting.txt now greets gyre."),
      ],
    };
    await withServer(
      script,
      async ({ server, mock }) => {
        const run = await codexExec(server, work, "Change the greeting in greeting.txt to greet gyre");
        expect(run.code, run.stderr).toBe(0);
        expect(readFileSync(join(work, "greeting.txt"), "utf8")).toBe("hello gyre\n");
        expect(run.stdout.trim()).toBe("greeting.txt now greets gyre.");
        expect(mock.requests).toHaveLength(3);
        const sentTools = (upstreamBody(mock, 0).tools ?? []) as { type?: string; name?: string }[];
        expect(sentTools).toContainEqual(expect.objectContaining({ type: "custom", name: "apply_patch" }));
        expect(outputsSent(upstreamBody(mock, 1))).toContain("hello world");
        // Codex answered the freeform call with a custom_tool_call_output, which reached the model as one.
        expect(outputsSent(upstreamBody(mock, 2))).toMatch(/greeting\.txt/);
        expect(outputsSent(upstreamBody(mock, 2))).toContain('"type":"custom_tool_call_output"');
      },
      serveOptions,
    );
  }, 120_000);
});
