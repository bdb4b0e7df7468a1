import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { HistoryEntry, SDKMessage, ToolResultBlock } from "../../protocol/index.js";
import { interruptReason } from "../next-step.js";
import { defineTool } from "../../tools/index.js";
import {
  drain,
  type Harness,
  type HarnessOptions,
  harness,
  lastAnswer,
  modelAnswered,
  toolUse,
} from "../loop.test-harness.js";
import { toolsStep } from "./tools.js";

// The tools step: the answer's calls run through the gate, their results go back as one user
// turn, and the step says what follows — go on, stop (denial, hook, end-run tool) or pause.

const ran: string[] = [];

const ledger = defineTool({
  name: "ledger",
  description: "Records an entry.",
  inputSchema: z.object({ entry: z.string() }),
  execute: ({ entry }) => {
    ran.push(`ledger ${entry}`);
    return { content: `recorded ${entry}`, data: { entry } };
  },
});

const lookup = defineTool({
  name: "lookup",
  description: "Reads a value.",
  inputSchema: z.object({ key: z.string() }),
  readOnly: true,
  execute: ({ key }) => {
    ran.push(`lookup ${key}`);
    return `value of ${key}`;
  },
});

/** Executed by the caller: the run pauses on its calls. */
const browser = defineTool({
  name: "browser",
  description: "Opens a page in the caller's browser.",
  inputSchema: z.object({ url: z.string() }),
});

const finish = defineTool({
  name: "finish",
  description: "Ends the run with an answer, or a question for the person.",
  inputSchema: z.object({ answer: z.string(), ask: z.string().optional() }),
  sideEffect: "none",
  execute: ({ answer, ask }) => ({
    content: "ok",
    endRun: { result: answer, ...(ask && { question: { question: ask } }), structuredOutput: { answer } },
  }),
});

function setup(options: HarnessOptions = {}): Harness {
  ran.length = 0;
  return harness({ tools: [ledger, lookup, browser, finish], permissions: { allow: ["ledger"] }, ...options });
}

async function runStep(h: Harness) {
  return drain(toolsStep(h.context, h.state, lastAnswer(h)));
}

function lastEntry(h: Harness): HistoryEntry | undefined {
  return h.state.history.at(-1);
}

function resultsIn(entry: HistoryEntry | undefined): ToolResultBlock[] {
  if (entry?.role !== "user" || typeof entry.content === "string") return [];
  return entry.content.filter((block): block is ToolResultBlock => block.type === "tool_result");
}

function userMessages(messages: SDKMessage[]) {
  return messages.flatMap((message) => (message.type === "user" ? [message] : []));
}

const ids = (results: ToolResultBlock[]) => results.map((result) => result.tool_use_id);

describe("toolsStep", () => {
  it("goes on without doing anything when the answer made no calls", async () => {
    const h = setup();
    modelAnswered(h, [{ type: "text", text: "hi" }]);
    const before = h.state.history.length;
    const { messages, value } = await runStep(h);
    expect(value).toEqual({ next: "continue" });
    expect(messages).toEqual([]);
    expect(h.state.history).toHaveLength(before);
  });

  it("records every result as one synthetic user turn, in call order, and goes on", async () => {
    const h = setup();
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" }), toolUse("c2", "lookup", { key: "k" })]);
    const { messages, value } = await runStep(h);
    expect(value).toEqual({ next: "continue" });
    expect(ran).toEqual(["ledger a", "lookup k"]);
    const results = resultsIn(lastEntry(h));
    expect(results).toEqual([
      { type: "tool_result", tool_use_id: "c1", content: "recorded a" },
      { type: "tool_result", tool_use_id: "c2", content: "value of k" },
    ]);
    const [user, ...others] = userMessages(messages);
    expect(others).toEqual([]);
    expect(user?.message.content).toEqual(results);
    expect(user).toMatchObject({ isSynthetic: true, tool_use_result: { c1: { entry: "a" } } });
    // Calls that end before the progress threshold report no progress (see tool-progress.test.ts),
    // only that they started.
    const progress = messages.flatMap((message) => (message.type === "tool_progress" ? [message] : []));
    expect(progress.map((message) => [message.tool_use_id, message.elapsed_time_seconds])).toEqual([
      ["c1", 0],
      ["c2", 0],
    ]);
    expect(h.state.denials).toEqual([]);
  });

  it("answers a denied call with the denial and counts it, and the run goes on", async () => {
    const h = setup({ permissions: { deny: ["ledger"] } });
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" }), toolUse("c2", "lookup", { key: "k" })]);
    const { value } = await runStep(h);
    expect(value).toEqual({ next: "continue" });
    expect(ran).toEqual(["lookup k"]);
    const [denied, allowed] = resultsIn(lastEntry(h));
    expect(denied).toMatchObject({ tool_use_id: "c1", is_error: true, content: expect.stringContaining("denied") });
    expect(allowed).toMatchObject({ tool_use_id: "c2", content: "value of k" });
    expect(h.state.denials).toEqual([{ tool_name: "ledger", tool_use_id: "c1", tool_input: { entry: "a" } }]);
  });

  it("stops as permission_denied when a denial interrupts, answering the calls after it as not run", async () => {
    const h = setup({
      permissions: {},
      canUseTool: async () => ({ behavior: "deny", message: "stop right there", interrupt: true }),
    });
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" }), toolUse("c2", "lookup", { key: "k" })]);
    const { value } = await runStep(h);
    expect(value).toEqual({
      next: "stop",
      reason: "permission_denied",
      errors: ["A tool call was denied and the run was stopped."],
    });
    expect(ran).toEqual([]);
    const results = resultsIn(lastEntry(h));
    expect(results).toEqual([
      { type: "tool_result", tool_use_id: "c1", content: "stop right there", is_error: true },
      {
        type: "tool_result",
        tool_use_id: "c2",
        content: "Error: lookup was not run because an earlier call was denied and the run stopped.",
        is_error: true,
      },
    ]);
    expect(h.state.denials).toHaveLength(1);
  });

  it("pauses on a client tool, with only the other calls' results recorded", async () => {
    const h = setup();
    modelAnswered(h, [
      toolUse("c1", "ledger", { entry: "a" }),
      toolUse("c2", "browser", { url: "https://example.com" }),
      toolUse("c3", "lookup", { key: "k" }),
    ]);
    const { messages, value } = await runStep(h);
    const pending = [{ kind: "client_tool", id: "c2", name: "browser", input: { url: "https://example.com" } }];
    expect(value).toEqual({ next: "pause", pending });
    expect(h.state.pending).toEqual(pending);
    expect(ran).toEqual(["ledger a", "lookup k"]);
    expect(ids(resultsIn(lastEntry(h)))).toEqual(["c1", "c3"]);
    expect(userMessages(messages)).toHaveLength(1);
  });

  it("pauses without recording a turn when every call waits on the caller", async () => {
    const h = setup();
    const answer = modelAnswered(h, [toolUse("c1", "browser", { url: "https://example.com" })]);
    const { messages, value } = await runStep(h);
    expect(value).toMatchObject({ next: "pause", pending: [{ kind: "client_tool", id: "c1" }] });
    expect(messages).toEqual([]);
    expect(lastEntry(h)).toEqual({ role: "assistant", message: answer });
  });

  it("pauses on a deferred approval, with the reason and the input the gate passed on", async () => {
    const h = setup({ permissions: {}, canUseTool: async () => ({ behavior: "defer", message: "ask the owner" }) });
    modelAnswered(h, [toolUse("c1", "lookup", { key: "k" }), toolUse("c2", "ledger", { entry: "a" })]);
    const { value } = await runStep(h);
    const pending = [{ kind: "approval", id: "c2", name: "ledger", input: { entry: "a" }, reason: "ask the owner" }];
    expect(value).toEqual({ next: "pause", pending });
    expect(h.state.pending).toEqual(pending);
    expect(ran).toEqual(["lookup k"]);
    expect(ids(resultsIn(lastEntry(h)))).toEqual(["c1"]);
    expect(h.state.denials).toEqual([]);
  });

  it("does not wait on a client tool when the run stops: it is answered as not run", async () => {
    const h = setup({
      permissions: {},
      canUseTool: async () => ({ behavior: "deny", message: "no", interrupt: true }),
    });
    modelAnswered(h, [toolUse("c1", "browser", { url: "u" }), toolUse("c2", "ledger", { entry: "a" })]);
    const { value } = await runStep(h);
    expect(value).toMatchObject({ next: "stop", reason: "permission_denied" });
    expect(h.state.pending).toEqual([]);
    const results = resultsIn(lastEntry(h));
    expect(ids(results)).toEqual(["c1", "c2"]);
    expect(results[0]).toMatchObject({ is_error: true, content: expect.stringContaining("browser was not run") });
  });

  it("stops as completed with an end-run tool's answer as the result", async () => {
    const h = setup();
    modelAnswered(h, [toolUse("c1", "finish", { answer: "42" })]);
    const { value } = await runStep(h);
    expect(value).toEqual({
      next: "stop",
      reason: "completed",
      resultText: "42",
      question: undefined,
      structuredOutput: { answer: "42" },
    });
    expect(resultsIn(lastEntry(h))).toEqual([{ type: "tool_result", tool_use_id: "c1", content: "ok" }]);
  });

  it("stops as question when the end-run tool asks the person", async () => {
    const h = setup();
    modelAnswered(h, [toolUse("c1", "finish", { answer: "need input", ask: "Which branch?" })]);
    const { value } = await runStep(h);
    expect(value).toMatchObject({
      next: "stop",
      reason: "question",
      resultText: "need input",
      question: { question: "Which branch?" },
    });
  });

  it("stops as tool_stopped after a stop-at tool, with its output as the result", async () => {
    const h = setup({ stopAtTools: ["lookup"] });
    modelAnswered(h, [toolUse("c1", "lookup", { key: "k" })]);
    const { value } = await runStep(h);
    expect(value).toMatchObject({ next: "stop", reason: "tool_stopped", resultText: "value of k" });
  });

  it("does not end the run on a stop-at tool that failed", async () => {
    const h = setup({ stopAtTools: ["lookup"] });
    modelAnswered(h, [toolUse("c1", "lookup", { key: 5 })]);
    const { value } = await runStep(h);
    expect(value).toEqual({ next: "continue" });
    expect(resultsIn(lastEntry(h))[0]).toMatchObject({ is_error: true });
  });

  it("stops as hook_stopped when a PreToolUse hook says continue: false", async () => {
    const h = setup({ hooks: { PreToolUse: [{ hooks: [async () => ({ continue: false, stopReason: "freeze" })] }] } });
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" })]);
    const { value } = await runStep(h);
    expect(value).toEqual({ next: "stop", reason: "hook_stopped", errors: ["A hook stopped the run."] });
    expect(ran).toEqual([]);
    expect(resultsIn(lastEntry(h))).toEqual([
      { type: "tool_result", tool_use_id: "c1", content: "freeze", is_error: true },
    ]);
    expect(h.state.denials).toEqual([]);
  });

  it("stops as hook_stopped when a PostToolUse hook says continue: false, after the tool ran", async () => {
    const h = setup({ hooks: { PostToolUse: [{ hooks: [async () => ({ continue: false })] }] } });
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" })]);
    const { value } = await runStep(h);
    expect(value).toMatchObject({ next: "stop", reason: "hook_stopped" });
    expect(ran).toEqual(["ledger a"]);
  });

  it("stops as doom_loop when a repetition is not approved", async () => {
    const h = setup({ doomLoopThreshold: 2 });
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" })]);
    expect((await runStep(h)).value).toEqual({ next: "continue" });
    modelAnswered(h, [toolUse("c2", "ledger", { entry: "a" })]);
    const { value } = await runStep(h);
    expect(value).toEqual({
      next: "stop",
      reason: "doom_loop",
      errors: ["The model kept repeating the same tool call, and the repetition was not approved."],
    });
    expect(ran).toEqual(["ledger a"]);
    expect(h.state.denials).toHaveLength(1);
  });

  it("stops as interrupted when the run is aborted during a tool, with a result for every call", async () => {
    const h = setup({
      tools: [
        defineTool({
          name: "ledger",
          description: "Aborts the run while it works.",
          inputSchema: z.object({ entry: z.string() }),
          execute: () => {
            h.controller.abort(interruptReason());
            return new Promise<string>(() => {});
          },
        }),
        lookup,
      ],
    });
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" }), toolUse("c2", "lookup", { key: "k" })]);
    const { value } = await runStep(h);
    expect(value).toEqual({ next: "stop", reason: "interrupted", errors: ["The run was interrupted."] });
    expect(resultsIn(lastEntry(h))).toEqual([
      expect.objectContaining({ tool_use_id: "c1", is_error: true, content: expect.stringContaining("interrupted") }),
      expect.objectContaining({
        tool_use_id: "c2",
        is_error: true,
        content: "Error: lookup was not run because the run was interrupted.",
      }),
    ]);
  });

  it("answers an unknown tool and invalid input with errors the model can act on, and goes on", async () => {
    const h = setup();
    modelAnswered(h, [toolUse("c1", "nope", {}), toolUse("c2", "ledger", { entry: 1 })]);
    const { value } = await runStep(h);
    expect(value).toEqual({ next: "continue" });
    const [unknown, invalid] = resultsIn(lastEntry(h));
    expect(unknown).toMatchObject({
      is_error: true,
      content: expect.stringContaining("Available tools: ledger, lookup"),
    });
    expect(invalid).toMatchObject({ is_error: true, content: expect.stringContaining("InputValidationError") });
    expect(ran).toEqual([]);
  });

  it("answers a call whose id repeated an earlier one without running it", async () => {
    const h = setup();
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" }), toolUse("c1-2", "ledger", { entry: "b" })]);
    if (h.answer) h.answer.repeatedIds = new Map([["c1-2", "c1"]]);
    await runStep(h);
    expect(ran).toEqual(["ledger a"]);
    expect(resultsIn(lastEntry(h))[1]).toMatchObject({
      tool_use_id: "c1-2",
      is_error: true,
      content: expect.stringContaining("repeated the id of an earlier call"),
    });
  });

  it("adds hook context and a PostToolUse block to the result as system reminders", async () => {
    const h = setup({
      hooks: {
        PreToolUse: [
          {
            hooks: [
              async () => ({ hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "pre note" } }),
            ],
          },
        ],
        PostToolUse: [{ hooks: [async () => ({ decision: "block", reason: "check the ledger" })] }],
      },
    });
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" })]);
    await runStep(h);
    const [result] = resultsIn(lastEntry(h));
    expect(result?.content).toBe(
      "recorded a\n\n<system-reminder>\npre note\n</system-reminder>\n<system-reminder>\ncheck the ledger\n</system-reminder>",
    );
  });

  it("yields hook reports before the results", async () => {
    const h = setup({ hooks: { PreToolUse: [{ hooks: [async () => ({ systemMessage: "audited" })] }] } });
    modelAnswered(h, [toolUse("c1", "ledger", { entry: "a" })]);
    const { messages } = await runStep(h);
    const types = messages.map((message) => (message.type === "system" ? message.subtype : message.type));
    // The PreToolUse report comes before the call starts; the result after.
    expect(types).toEqual(["hook_response", "tool_progress", "user"]);
  });
});
