import { describe, expect, it } from "vitest";
import { z } from "zod";
import { isGyreError } from "../errors/index.js";
import type { PermissionResult } from "../permissions/index.js";
import type { PendingToolCall, SDKMessage, ToolResultBlock, UserContentBlock } from "../protocol/index.js";
import { defineTool } from "../tools/index.js";
import { drain, type Harness, harness, lastAnswer, modelAnswered, NOW, toolUse } from "./loop.test-harness.js";
import { MessageStamp } from "./messages.js";
import { pendingToolCalls, readAnswers } from "./pause.js";
import { resumeStep } from "./steps/resume.js";
import { resultMessage } from "./result.js";
import { toolsStep } from "./steps/tools.js";

// A paused run (`requires_action`): which calls a stored session waits on, how a prompt must
// answer them, and how the answers join the paused turn when the run goes on.

const stamp = new MessageStamp("s", () => "u");

const clientCall: PendingToolCall = { kind: "client_tool", id: "c2", name: "browser", input: { url: "u" } };
const approvalCall: PendingToolCall = {
  kind: "approval",
  id: "c3",
  name: "ledger",
  input: { entry: "a" },
  reason: "why",
};

function paused(pending: PendingToolCall[]): SDKMessage {
  const h = harness();
  return resultMessage(stamp, h.state, "requires_action", { pending }, NOW);
}

function ended(): SDKMessage {
  const h = harness();
  return resultMessage(stamp, h.state, "completed", {}, NOW);
}

function user(content: string | UserContentBlock[], parent: string | null = null): SDKMessage {
  return { ...stamp.user(content), parent_tool_use_id: parent };
}

function result(id: string, content = `result of ${id}`): ToolResultBlock {
  return { type: "tool_result", tool_use_id: id, content };
}

describe("pendingToolCalls", () => {
  const cases: Array<[string, SDKMessage[], PendingToolCall[]]> = [
    ["no messages", [], []],
    ["a run that ended", [user("go"), ended()], []],
    [
      "the calls of the last requires_action result",
      [user("go"), paused([clientCall, approvalCall])],
      [clientCall, approvalCall],
    ],
    [
      "less the calls a later prompt answered",
      [paused([clientCall, approvalCall]), user([result("c2")])],
      [approvalCall],
    ],
    ["none once every call is answered", [paused([clientCall]), user([result("c2")])], []],
    [
      "not answered by a subagent's user message",
      [paused([clientCall]), user([result("c2")], "toolu_parent")],
      [clientCall],
    ],
    ["not answered by a plain text prompt", [paused([clientCall]), user("here you go")], [clientCall]],
    ["none after a later result of another kind", [paused([clientCall]), user([result("c2")]), ended()], []],
    [
      "the latest pause's calls only",
      [paused([clientCall]), user([result("c2")]), paused([approvalCall])],
      [approvalCall],
    ],
  ];
  for (const [name, messages, expected] of cases) {
    it(name, () => {
      expect(pendingToolCalls(messages)).toEqual(expected);
    });
  }
});

describe("readAnswers", () => {
  const pending = [clientCall, approvalCall];
  const allow: PermissionResult = { behavior: "allow" };

  it("takes one result per client tool, one approval per deferred call, and the rest as a new turn", () => {
    const answers = readAnswers(pending, [result("c2"), { type: "text", text: "and then" }], { c3: allow });
    expect(answers.calls).toEqual(pending);
    expect([...answers.results]).toEqual([["c2", result("c2")]]);
    expect([...answers.approvals]).toEqual([["c3", allow]]);
    expect(answers.rest).toEqual([{ type: "text", text: "and then" }]);
  });

  it("takes a plain text prompt as the rest when only approvals are pending", () => {
    const deny: PermissionResult = { behavior: "deny", message: "no" };
    expect(readAnswers([approvalCall], "go on", { c3: deny })).toMatchObject({
      rest: [{ type: "text", text: "go on" }],
      approvals: new Map([["c3", deny]]),
    });
    expect(readAnswers([approvalCall], "", { c3: deny }).rest).toEqual([]);
  });

  const rejected: Array<[string, string | UserContentBlock[], Record<string, PermissionResult>, RegExp]> = [
    [
      "a result for a call that is not pending",
      [result("c2"), result("c9")],
      { c3: allow },
      /a tool_result for c9, which is not a pending call/,
    ],
    [
      "a result for a call that waits on an approval",
      [result("c2"), result("c3")],
      { c3: allow },
      /a tool_result for c3, which waits on an approval/,
    ],
    ["two results for one call", [result("c2"), result("c2")], { c3: allow }, /two tool_results for c2/],
    [
      "an approval for a call that is not pending",
      [result("c2")],
      { c3: allow, c9: allow },
      /an approval for c9, which is not a pending call/,
    ],
    [
      "an approval for a client tool",
      [result("c2")],
      { c2: allow, c3: allow },
      /an approval for c2, which waits on a tool_result/,
    ],
    [
      "an approval that defers again",
      [result("c2")],
      { c3: { behavior: "defer" } },
      /an approval for c3 that defers it again/,
    ],
    ["a missing result", [], { c3: allow }, /no tool_result for browser \(c2\)/],
    ["a missing result (text only)", "done", { c3: allow }, /no tool_result for browser \(c2\)/],
    ["a missing approval", [result("c2")], {}, /no approval for ledger \(c3\)/],
  ];
  for (const [name, content, approvals, problem] of rejected) {
    it(`refuses ${name} with resume_mismatch`, () => {
      let thrown: unknown;
      try {
        readAnswers(pending, content, approvals);
      } catch (error) {
        thrown = error;
      }
      expect(isGyreError(thrown, "resume_mismatch")).toBe(true);
      expect((thrown as Error).message).toMatch(problem);
      expect((thrown as Error).message).toContain("waits on browser (c2, result), ledger (c3, approval)");
    });
  }
});

describe("resumeStep", () => {
  const ran: string[] = [];
  const ledger = defineTool({
    name: "ledger",
    description: "Records an entry.",
    inputSchema: z.object({ entry: z.string() }),
    execute: ({ entry }) => {
      ran.push(entry);
      return { content: `recorded ${entry}`, data: { entry } };
    },
  });
  const lookup = defineTool({
    name: "lookup",
    description: "Reads a value.",
    inputSchema: z.object({ key: z.string() }),
    readOnly: true,
    execute: ({ key }) => `value of ${key}`,
  });
  const browser = defineTool({
    name: "browser",
    description: "The caller's browser.",
    inputSchema: z.object({ url: z.string() }),
  });

  let asked = 0;

  /** A run paused by the tools step on a turn of lookup (ran), browser (client) and ledger (deferred). */
  async function pausedRun(
    calls = [
      toolUse("c1", "lookup", { key: "k" }),
      toolUse("c2", "browser", { url: "u" }),
      toolUse("c3", "ledger", { entry: "a" }),
    ],
  ): Promise<{ h: Harness; pending: PendingToolCall[] }> {
    ran.length = 0;
    asked = 0;
    const h = harness({
      tools: [ledger, lookup, browser],
      canUseTool: async () => {
        asked++;
        return { behavior: "defer", message: "needs a person" };
      },
    });
    modelAnswered(h, calls);
    const { value } = await drain(toolsStep(h.context, h.state, lastAnswer(h)));
    if (value.next !== "pause") throw new Error(`expected a pause, got ${value.next}`);
    asked = 0;
    return { h, pending: value.pending };
  }

  function turnAfterAnswer(h: Harness) {
    const index = h.state.history.findLastIndex((entry) => entry.role === "assistant");
    return h.state.history.slice(index + 1);
  }

  it("runs an approved call, takes the client's result, and joins them to the paused turn in call order", async () => {
    const { h, pending } = await pausedRun();
    expect(pending.map((call) => call.id)).toEqual(["c2", "c3"]);
    const answers = readAnswers(pending, [result("c2", "page text")], { c3: { behavior: "allow" } });
    const { messages, value } = await drain(resumeStep(h.context, h.state, answers));
    expect(value).toEqual({ next: "continue" });
    expect(h.state.pending).toEqual([]);
    expect(ran).toEqual(["a"]);
    expect(asked).toBe(0);
    expect(turnAfterAnswer(h)).toEqual([
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: "value of k" },
          result("c2", "page text"),
          { type: "tool_result", tool_use_id: "c3", content: "recorded a" },
        ],
      },
    ]);
    const users = messages.filter((message) => message.type === "user");
    expect(users).toEqual([
      expect.objectContaining({
        message: {
          role: "user",
          content: [result("c2", "page text"), { type: "tool_result", tool_use_id: "c3", content: "recorded a" }],
        },
        tool_use_result: { c3: { entry: "a" } },
      }),
    ]);
  });

  it("sorts the answers into call order whatever order the pending calls were listed in", async () => {
    const { h, pending } = await pausedRun();
    const answers = readAnswers([...pending].reverse(), [result("c2")], { c3: { behavior: "allow" } });
    await drain(resumeStep(h.context, h.state, answers));
    const [turn] = turnAfterAnswer(h);
    expect(
      turn?.role === "user" &&
        Array.isArray(turn.content) &&
        turn.content.map((block) => block.type === "tool_result" && block.tool_use_id),
    ).toEqual(["c1", "c2", "c3"]);
  });

  it("answers a denied call with the denial, counts it, and goes on", async () => {
    const { h, pending } = await pausedRun();
    const answers = readAnswers(pending, [result("c2")], { c3: { behavior: "deny", message: "not that entry" } });
    const { value } = await drain(resumeStep(h.context, h.state, answers));
    expect(value).toEqual({ next: "continue" });
    expect(ran).toEqual([]);
    const [turn] = turnAfterAnswer(h);
    expect(turn?.role === "user" && turn.content).toContainEqual({
      type: "tool_result",
      tool_use_id: "c3",
      content: "not that entry",
      is_error: true,
    });
    expect(h.state.denials).toEqual([{ tool_name: "ledger", tool_use_id: "c3", tool_input: { entry: "a" } }]);
  });

  it("stops as permission_denied when the denial interrupts", async () => {
    const { h, pending } = await pausedRun();
    const answers = readAnswers(pending, [result("c2")], {
      c3: { behavior: "deny", message: "stop", interrupt: true },
    });
    const { value } = await drain(resumeStep(h.context, h.state, answers));
    expect(value).toMatchObject({ next: "stop", reason: "permission_denied" });
    expect(h.state.pending).toEqual([]);
  });

  it("adds a user turn after the answer when the paused turn had no results, and the prompt's text after that", async () => {
    const { h, pending } = await pausedRun([toolUse("c2", "browser", { url: "u" })]);
    expect(turnAfterAnswer(h)).toEqual([]);
    const answers = readAnswers(pending, [result("c2"), { type: "text", text: "now summarise" }]);
    const { messages, value } = await drain(resumeStep(h.context, h.state, answers));
    expect(value).toEqual({ next: "continue" });
    expect(turnAfterAnswer(h)).toEqual([
      { role: "user", content: [result("c2")] },
      { role: "user", content: [{ type: "text", text: "now summarise" }] },
    ]);
    expect(messages).toEqual([
      expect.objectContaining({
        type: "user",
        message: { role: "user", content: [result("c2"), { type: "text", text: "now summarise" }] },
      }),
    ]);
  });

  it("runs an approval with a changed input as the person gave it", async () => {
    const { h, pending } = await pausedRun();
    const answers = readAnswers(pending, [result("c2")], { c3: { behavior: "allow", updatedInput: { entry: "b" } } });
    await drain(resumeStep(h.context, h.state, answers));
    expect(ran).toEqual(["b"]);
  });
});
