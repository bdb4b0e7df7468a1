import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { type ToolExecutor, type ToolExecutorCall, type ToolExecutorContext } from "../src/server/index.js";
import { mockTurn } from "../src/testing/index.js";
import { withMock } from "./helpers.js";
import { killAll, serveUntilExit, startServe } from "./serve-process.js";
import { upstreamBody, UPSTREAMS, withServer } from "./serve-support.js";

// Issue 32, row 13: tool kinds behind one ToolExecutor interface; an operator registers a kind of
// its own (here a "box": each call a child process of its own, as a container per run would be)
// through createServer's config, or through the config file's toolExecutors modules.

const BOX_MODULE = resolve(import.meta.dirname, "fixtures/tool-executors/box.mjs");
const folders: string[] = [];
afterEach(() => killAll());
afterAll(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** The executor the library way: each call a real child process, its responses and calls recorded. */
function boxExecutor(seen: { responses: string[]; calls: ToolExecutorCall[] }): ToolExecutor {
  return {
    kind: "box",
    tools: (context: ToolExecutorContext) => {
      seen.responses.push(context.responseId);
      return [
        {
          name: "run_in_box",
          description: "Runs a JavaScript snippet in a fresh box and returns what it prints.",
          inputSchema: z.object({ script: z.string() }),
          sideEffect: "mutating" as const,
        },
      ];
    },
    canExecute: (call) => call.name === "run_in_box",
    execute: (call) => {
      seen.calls.push(call);
      const { script } = call.input as { script: string };
      return new Promise((done) =>
        execFile(process.execPath, ["-e", script], (error, stdout) =>
          done(error ? { content: String(error), isError: true } : stdout.trim()),
        ),
      );
    },
  };
}

describe.each(UPSTREAMS)("an operator's tool executor with the $name upstream", (upstream) => {
  it("offers its tools to every response and runs their calls server-side, shown as completed calls", async () => {
    const seen = { responses: [] as string[], calls: [] as ToolExecutorCall[] };
    const turns = [
      mockTurn.toolUse("run_in_box", { script: "console.log(6 * 7)" }, { id: "call_box" }),
      mockTurn.text("The box printed 42."),
    ];
    await withServer(
      { turns },
      async ({ client, mock }) => {
        const response = await client().responses.create({ model: upstream.model, input: "Use the box." });
        expect(response.status).toBe("completed");
        expect(response.output.map((item) => item.type)).toEqual(["function_call", "function_call_output", "message"]);
        const output = response.output[1] as unknown as { output: string; status: string };
        expect(output).toMatchObject({ output: "42", status: "completed" });
        expect(response.output_text).toBe("The box printed 42.");
        // The executor was asked for this response's tools, and ran the call with its input.
        expect(seen.responses).toEqual([response.id]);
        expect(seen.calls).toMatchObject([{ name: "run_in_box", input: { script: "console.log(6 * 7)" } }]);
        // The model was offered its tool, and got its output back.
        expect(JSON.stringify(upstreamBody(mock, 0))).toContain("run_in_box");
        expect(JSON.stringify(upstreamBody(mock, 1))).toContain("42");
      },
      { toolExecutors: [boxExecutor(seen)] },
    );
  });
});

describe("tool executor modules of the config file", () => {
  it("gyre serve loads them, relative to the config file, with their options", async () => {
    const folder = mkdtempSync(join(tmpdir(), "gyre-executors-"));
    folders.push(folder);
    writeFileSync(
      join(folder, "gyre.yaml"),
      `toolExecutors:\n  - module: ${JSON.stringify(BOX_MODULE)}\n    options: { prefix: "box says " }\n`,
    );
    await withMock(
      { turns: [mockTurn.toolUse("run_in_box", { script: "console.log('hi')" }), mockTurn.text("done")] },
      async (mock) => {
        const { url } = await startServe(["--config", join(folder, "gyre.yaml"), "--quiet"], mock.env());
        const response = await fetch(`${url}/responses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: "anthropic/claude-sonnet-4-5", input: "box", store: false }),
        });
        const body = (await response.json()) as { output: { type: string; output?: string }[] };
        expect(body.output.find((item) => item.type === "function_call_output")?.output).toBe("box says hi");
      },
    );
  });

  it("a module that cannot be loaded stops gyre serve at start, naming it", async () => {
    const folder = mkdtempSync(join(tmpdir(), "gyre-executors-bad-"));
    folders.push(folder);
    writeFileSync(join(folder, "gyre.yaml"), "toolExecutors:\n  - module: ./missing-executor.mjs\n");
    const { code, output } = await serveUntilExit(["--config", join(folder, "gyre.yaml")]);
    expect(code).toBe(1);
    expect(output).toContain("config_error");
    expect(output).toContain("missing-executor.mjs could not be loaded");
  });
});
