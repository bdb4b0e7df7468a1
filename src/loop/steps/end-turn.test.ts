import { describe, expect, it } from "vitest";
import type { HookCallback, HookCallbackResult, StopHookInput } from "../../hooks/index.js";
import type { SDKMessage, StopReason } from "../../protocol/index.js";
import {
  drain,
  type Harness,
  type HarnessOptions,
  harness,
  hookResponses,
  lastAnswer,
  modelAnswered,
  text,
} from "../loop.test-harness.js";
import type { NextStep } from "../next-step.js";
import { endTurnStep } from "./end-turn.js";

// The end of a turn without tool calls: the stop reason, StructuredOutput and loop-control
// reminders, then Stop hooks decide whether the run is done. Limits come from the harness:
// 2 max_tokens continuations, 2 structured-output reminders, 2 tool reminders, 2 Stop hook runs.

/** The model answers `words` with this stop reason, then the step runs. */
async function endTurn(h: Harness, stopReason: StopReason = "end_turn", words = "the answer") {
  modelAnswered(h, [text(words)], stopReason);
  return drain(endTurnStep(h.context, h.state, lastAnswer(h)));
}

/** What the loop added to the history after the answer: the text of its user turn, if any. */
function addedText(h: Harness): string | undefined {
  const entry = h.state.history.at(-1);
  if (entry?.role !== "user" || typeof entry.content === "string") return undefined;
  const [block] = entry.content;
  return block?.type === "text" ? block.text : undefined;
}

/** The text of the one synthetic user message yielded. */
function yieldedText(messages: SDKMessage[]): string | undefined {
  const users = messages.filter((message) => message.type === "user");
  expect(users).toHaveLength(1);
  const [user] = users;
  if (user?.type !== "user" || !user.isSynthetic || typeof user.message.content === "string") return undefined;
  const [block] = user.message.content;
  return block?.type === "text" ? block.text : undefined;
}

const CONTINUE: NextStep = { next: "continue" };

describe("endTurnStep: stop reasons", () => {
  it("continues a cut answer up to the limit, then stops as max_tokens", async () => {
    const h = harness({ limits: { maxTokensContinuations: 2 } });
    for (let round = 1; round <= 2; round++) {
      const { messages, value } = await endTurn(h, "max_tokens");
      expect(value).toEqual(CONTINUE);
      expect(addedText(h)).toMatch(/cut off .* Continue exactly where you left off/);
      expect(yieldedText(messages)).toBe(addedText(h));
      expect(h.state.counters.maxTokensContinuations).toBe(round);
    }
    const length = h.state.history.length;
    const { messages, value } = await endTurn(h, "max_tokens");
    expect(value).toEqual({
      next: "stop",
      reason: "max_tokens",
      errors: ["The model reached its output limit 3 times in a row; the answer is incomplete."],
    });
    expect(messages).toEqual([]);
    expect(h.state.history).toHaveLength(length + 1);
  });

  it("ends the run at the first cut answer with maxTokensContinuations 0, as the Go SDK does", async () => {
    const h = harness({ limits: { maxTokensContinuations: 0 } });
    const length = h.state.history.length;
    const { messages, value } = await endTurn(h, "max_tokens");
    expect(value).toEqual({
      next: "stop",
      reason: "max_tokens",
      errors: [
        "The model reached its output limit; the answer is incomplete (cut answers are not continued: maxTokensContinuations is 0).",
      ],
    });
    expect(messages).toEqual([]);
    expect(h.state.history).toHaveLength(length + 1);
  });

  it("continues a cut answer before asking for StructuredOutput", async () => {
    const h = harness({ structuredOutput: true });
    const { value } = await endTurn(h, "max_tokens");
    expect(value).toEqual(CONTINUE);
    expect(h.state.counters).toMatchObject({ maxTokensContinuations: 1, structuredOutputReminders: 0 });
  });

  it("stops as refusal, adding nothing, even when StructuredOutput or a tool call is expected", async () => {
    const h = harness({ structuredOutput: true, loopControl: true });
    const length = h.state.history.length;
    const { messages, value } = await endTurn(h, "refusal");
    expect(value).toEqual({ next: "stop", reason: "refusal" });
    expect(messages).toEqual([]);
    expect(h.state.history).toHaveLength(length + 1);
  });

  it("stops as completed when nothing asks for more", async () => {
    const h = harness();
    const { messages, value } = await endTurn(h);
    expect(value).toEqual({ next: "stop", reason: "completed" });
    expect(messages).toEqual([]);
  });
});

describe("endTurnStep: reminders", () => {
  it("reminds the model to call StructuredOutput, a bounded number of times, then stops as structured_output_missing", async () => {
    const h = harness({ structuredOutput: true, limits: { maxStructuredOutputRetries: 2 } });
    for (let round = 1; round <= 2; round++) {
      const { messages, value } = await endTurn(h);
      expect(value).toEqual(CONTINUE);
      expect(yieldedText(messages)).toMatch(/calling the StructuredOutput tool/);
      expect(messages[0]).toMatchObject({ subtype: "no_tool_call", attempt: round, max_attempts: 2 });
      expect(addedText(h)).toMatch(/calling the StructuredOutput tool/);
      expect(h.state.counters.structuredOutputReminders).toBe(round);
    }
    const { value } = await endTurn(h);
    expect(value).toEqual({
      next: "stop",
      reason: "structured_output_missing",
      errors: ["The model ended 3 times without a valid StructuredOutput call."],
    });
  });

  it("asks for StructuredOutput rather than a loop-control tool when both apply", async () => {
    const h = harness({ structuredOutput: true, loopControl: true });
    await endTurn(h);
    expect(h.state.counters).toMatchObject({ structuredOutputReminders: 1, toolReminders: 0 });
  });

  it("with loop-control tools, reminds the model to call a tool, then lets the run complete", async () => {
    const h = harness({ loopControl: true, limits: { maxToolReminders: 2 } });
    for (let round = 1; round <= 2; round++) {
      const { messages, value } = await endTurn(h);
      expect(value).toEqual(CONTINUE);
      expect(yieldedText(messages)).toMatch(/Call task_completion when the task is done/);
      expect(h.state.counters.toolReminders).toBe(round);
      // The event comes before the reminder it announces, with the turn that ended without a call.
      expect(messages[0]).toMatchObject({
        type: "system",
        subtype: "no_tool_call",
        turn: h.state.turns,
        reminder: expect.stringMatching(/Call task_completion/) as unknown as string,
        attempt: round,
        max_attempts: 2,
      });
      expect(messages.map((message) => message.type)).toEqual(["system", "user"]);
    }
    const { messages, value } = await endTurn(h);
    expect(value).toEqual({ next: "stop", reason: "completed" });
    expect(messages).toEqual([]);
  });

  it("sends no tool reminder without loop-control tools", async () => {
    const h = harness({ loopControl: false });
    expect((await endTurn(h)).value).toEqual({ next: "stop", reason: "completed" });
    expect(h.state.counters.toolReminders).toBe(0);
  });
});

/** Stop hooks that answer `outputs` in turn (the last one from then on), with the inputs they saw. */
function stopHook(...outputs: HookCallbackResult[]) {
  const inputs: StopHookInput[] = [];
  const callback: HookCallback = async (input) => {
    inputs.push(input as StopHookInput);
    return outputs[Math.min(inputs.length, outputs.length) - 1];
  };
  const options: HarnessOptions = { hooks: { Stop: [{ hooks: [callback] }] } };
  return { inputs, options };
}

describe("endTurnStep: Stop hooks", () => {
  it("keeps the agent going when a Stop hook blocks, with its reason as the next prompt", async () => {
    const hook = stopHook({ decision: "block", reason: "run the tests first" });
    const h = harness(hook.options);
    const { messages, value } = await endTurn(h, "end_turn", "all done");
    expect(value).toEqual(CONTINUE);
    expect(addedText(h)).toBe("run the tests first");
    expect(yieldedText(messages)).toBe("run the tests first");
    expect(h.state.counters.stopHookContinuations).toBe(1);
    expect(hook.inputs).toEqual([
      expect.objectContaining({ hook_event_name: "Stop", stop_hook_active: false, last_assistant_message: "all done" }),
    ]);
  });

  it("tells the hook it is active again, and stops asking it past the limit", async () => {
    const hook = stopHook({ decision: "block", reason: "again" });
    const h = harness({ ...hook.options, limits: { maxStopHookContinuations: 2 } });
    expect((await endTurn(h)).value).toEqual(CONTINUE);
    expect((await endTurn(h)).value).toEqual(CONTINUE);
    const { messages, value } = await endTurn(h);
    expect(value).toEqual({ next: "stop", reason: "completed" });
    expect(messages).toEqual([]);
    expect(hook.inputs.map((input) => input.stop_hook_active)).toEqual([false, true]);
  });

  it("completes when the Stop hook lets the agent stop", async () => {
    const hook = stopHook({});
    const h = harness(hook.options);
    const length = h.state.history.length;
    const { messages, value } = await endTurn(h);
    expect(value).toEqual({ next: "stop", reason: "completed" });
    expect(messages).toEqual([]);
    expect(hook.inputs).toHaveLength(1);
    expect(h.state.history).toHaveLength(length + 1);
  });

  it("stops as hook_stopped when a Stop hook says continue: false, with its reason", async () => {
    const hook = stopHook({ continue: false, stopReason: "budget review", decision: "block", reason: "ignored" });
    const h = harness(hook.options);
    const { value } = await endTurn(h);
    expect(value).toEqual({ next: "stop", reason: "hook_stopped", errors: ["budget review"] });
    expect(h.state.counters.stopHookContinuations).toBe(0);
  });

  it("stops as hook_stopped with a default reason when continue: false gives none", async () => {
    const hook = stopHook({ continue: false });
    const h = harness(hook.options);
    expect((await endTurn(h)).value).toEqual({
      next: "stop",
      reason: "hook_stopped",
      errors: ["A Stop hook ended the run."],
    });
  });

  it("stops as hook_stopped, not completed, when a Stop hook fails, and reports it", async () => {
    const h = harness({
      hooks: {
        Stop: [
          {
            hooks: [
              async function verifier() {
                throw new Error("linter missing");
              },
            ],
          },
        ],
      },
    });
    const { messages, value } = await endTurn(h);
    expect(value).toMatchObject({ next: "stop", reason: "hook_stopped" });
    expect(value.next === "stop" && value.errors?.join("\n")).toMatch(
      /Stop hook "callback verifier" failed: .*linter missing/s,
    );
    expect(hookResponses(messages)).toEqual([
      expect.objectContaining({ hook_event: "Stop", hook_name: "callback verifier", outcome: "error" }),
    ]);
  });

  it("reports a Stop hook's system message before the prompt it adds", async () => {
    const hook = stopHook({ systemMessage: "one more check", decision: "block", reason: "check" });
    const h = harness(hook.options);
    const { messages } = await endTurn(h);
    expect(messages.map((message) => message.type)).toEqual(["system", "user"]);
    expect(hookResponses(messages)[0]).toMatchObject({ outcome: "success", system_message: "one more check" });
  });

  it("runs Stop hooks only after the reminders are used up", async () => {
    const hook = stopHook({ decision: "block", reason: "keep going" });
    const h = harness({ ...hook.options, loopControl: true, limits: { maxToolReminders: 1 } });
    await endTurn(h);
    expect(hook.inputs).toHaveLength(0);
    await endTurn(h);
    expect(hook.inputs).toHaveLength(1);
  });
});
