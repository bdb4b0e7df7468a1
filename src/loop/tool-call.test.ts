import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineTool } from "../tools/index.js";
import { drain, type Harness, harness } from "./loop.test-harness.js";
import { runToolCall, type ToolCallEnv, ToolCallRun } from "./tool-call.js";

// One call's life through the pipeline: its state, the timeout, and what nobody can answer.

/** The pipeline's view of a harness's run (as runTools builds it). */
function envOf({ context, state }: Harness, toolTimeoutMs?: number): ToolCallEnv {
  const { registry, gate, hooks, stamp, session, cwd, signal, now } = context;
  return { registry, gate, state, hooks, stamp, session, cwd, signal, now, toolTimeoutMs };
}

/** A tool that answers after the harness's clock has moved `ms` (so that a call takes a known time). */
function steppingTool(h: () => Harness, ms: number) {
  return defineTool({
    name: "step",
    description: "Takes a step.",
    inputSchema: z.object({ to: z.string() }),
    readOnly: true,
    execute: async ({ to }) => {
      h().time.advance(ms);
      return `stepped to ${to}`;
    },
  });
}

describe("ToolCallRun", () => {
  it("goes pending → running → completed, timed on the run's clock", async () => {
    const seen: { run?: ToolCallRun } = {};
    const h: Harness = harness({
      tools: [
        defineTool({
          name: "step",
          description: "Takes a step.",
          inputSchema: z.object({ to: z.string() }),
          readOnly: true,
          execute: async ({ to }) => {
            expect(seen.run?.state).toMatchObject({ status: "running", startedAt: h.time.now() });
            h.time.advance(10);
            return `stepped to ${to}`;
          },
        }),
      ],
    });
    const run = new ToolCallRun(envOf(h), { id: "call-1", name: "step", input: { to: "b" } });
    seen.run = run;
    expect(run.state).toEqual({ status: "pending" });
    expect(run.prepare().ok).toBe(true);
    const { value: decision } = await drain(run.check());
    expect(decision.behavior).toBe("allow");
    expect(run.state.status).toBe("pending");
    if (decision.behavior !== "allow") return;
    const started = h.time.now();
    const { value: done } = await drain(run.execute(decision));
    expect(done.result).toEqual({ content: "stepped to b" });
    expect(run.state).toEqual({ status: "completed", startedAt: started, endedAt: started + 10, result: done.result });
  });

  it("starts with a titled tool_progress at 0 s, and keeps the tool's latest report as its metadata", async () => {
    const seen: { run?: ToolCallRun } = {};
    const h: Harness = harness({
      tools: [
        defineTool({
          name: "build",
          description: "Builds a target.",
          inputSchema: z.object({ command: z.string() }),
          readOnly: true,
          execute: async (_input, context) => {
            context.reportProgress({ line: "compiling" });
            context.emit({ type: "progress", data: { line: "linking" } });
            expect(seen.run?.state).toMatchObject({ status: "running", metadata: { line: "linking" } });
            return "built";
          },
        }),
      ],
    });
    const run = new ToolCallRun(envOf(h), { id: "call-1", name: "build", input: { command: "make   all\n" } });
    seen.run = run;
    expect(run.title).toBe("make all");
    run.prepare();
    const { value: decision } = await drain(run.check());
    if (decision.behavior !== "allow") throw new Error("the call should be allowed");
    const { messages } = await drain(run.execute(decision));
    expect(messages).toEqual([
      {
        type: "tool_progress",
        tool_use_id: "call-1",
        tool_name: "build",
        parent_tool_use_id: null,
        elapsed_time_seconds: 0,
        title: "make all",
        // Why it may run, as the permission policy said it.
        permission_reason: "build only reads",
        uuid: expect.any(String),
        session_id: h.context.stamp.sessionId,
      },
    ]);
    expect(run.state).toMatchObject({ status: "completed", metadata: { line: "linking" } });
  });

  it("a call that never runs ends in error at once: invalid input, a denial", async () => {
    const h: Harness = harness({ tools: [steppingTool(() => h, 10)], permissions: { deny: ["step"] } });
    const invalid = new ToolCallRun(envOf(h), { id: "call-1", name: "step", input: { to: 1 } });
    expect(invalid.prepare().ok).toBe(false);
    expect(invalid.state).toMatchObject({ status: "error", startedAt: h.time.now(), endedAt: h.time.now() });
    const denied = new ToolCallRun(envOf(h), { id: "call-2", name: "step", input: { to: "b" } });
    denied.prepare();
    const { value: decision } = await drain(denied.check());
    expect(decision.behavior).toBe("deny");
    expect(denied.state).toMatchObject({ status: "error", result: { isError: true } });
    // Neither says it started: runToolCall sends no start for a call that does not run.
    for (const input of [{ to: 1 }, { to: "b" }]) {
      const { messages } = await drain(runToolCall(envOf(h), { id: "call-3", name: "step", input }));
      expect(messages.filter((message) => message.type === "tool_progress")).toEqual([]);
    }
  });
});

describe("runToolCall", () => {
  it("stops a call at the run's toolTimeoutMs; a tool's own timeout wins over it", async () => {
    const slow = (name: string, timeoutMs?: number) =>
      defineTool({
        name,
        description: "Never ends by itself.",
        inputSchema: z.object({}),
        readOnly: true,
        ...(timeoutMs !== undefined && { timeoutMs }),
        execute: () => new Promise<string>(() => {}),
      });
    const h = harness({ tools: [slow("slow"), slow("own", 20)] });
    const env = envOf(h, 10);
    const { value: stopped } = await drain(runToolCall(env, { id: "call-1", name: "slow", input: {} }));
    expect(stopped).toEqual({ content: "Error: slow timed out after 10 ms and was stopped.", isError: true });
    const { value: own } = await drain(runToolCall(env, { id: "call-2", name: "own", input: {} }));
    expect(own).toEqual({ content: "Error: own timed out after 20 ms and was stopped.", isError: true });
  });

  it("refuses a call that needs an answer nobody can give", async () => {
    const h = harness({
      tools: [steppingTool(() => h, 0)],
      hooks: {
        PreToolUse: [
          {
            hooks: [async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "defer" } })],
          },
        ],
      },
    });
    const { value } = await drain(runToolCall(envOf(h), { id: "call-1", name: "step", input: { to: "b" } }));
    expect(value).toEqual({
      content: "Permission to use step is required (a hook deferred the decision), and no one can be asked.",
      isError: true,
    });
  });
});
