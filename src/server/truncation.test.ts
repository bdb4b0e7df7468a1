import { describe, expect, it } from "vitest";
import type { Conversation, Turn } from "./conversation.js";
import { DROPPED_NOTE, fitConversation } from "./truncation.js";

const big = (word: string) => `${word} ${"x".repeat(2_000)}`; // about 500 tokens
const user = (text: string): Turn => ({ role: "user", content: [{ type: "text", text }] });
const answer = (text: string): Turn => ({ role: "assistant", content: [{ type: "text", text }] });
const call = (id: string): Turn => ({
  role: "assistant",
  content: [{ type: "tool_use", id, name: "get_weather", input: {} }],
});
const output = (id: string, text: string): Turn => ({
  role: "user",
  content: [{ type: "tool_result", tool_use_id: id, content: text }],
});

function conversation(
  seed: Turn[],
  prompt: Conversation["prompt"] = [{ type: "text", text: "and now?" }],
): Conversation {
  return { system: [], seed, pending: [], prompt, approvals: {} };
}

const budget = (inputTokens: number) => ({ inputTokens, fixedTokens: 10 });

describe("fitConversation", () => {
  it("leaves a conversation that fits alone, in either mode", () => {
    const fits = conversation([user("hi"), answer("hello")]);
    expect(fitConversation(fits, budget(100), "disabled")).toBe(fits);
    expect(fitConversation(fits, budget(100), "auto")).toBe(fits);
  });

  it("refuses a conversation over the budget when truncation is disabled", () => {
    const long = conversation([user(big("first")), answer("ok")]);
    expect(() => fitConversation(long, budget(300), "disabled")).toThrow(
      expect.objectContaining({ statusCode: 400, wireCode: "context_length_exceeded", param: "input" }),
    );
  });

  it("drops the oldest turns, as few as fit, and says so where they were", () => {
    const long = conversation([user(big("first")), answer("ok1"), user(big("second")), answer("ok2")]);
    const fitted = fitConversation(long, budget(700), "auto");
    expect(fitted.seed).toEqual([user(DROPPED_NOTE), answer("ok1"), user(big("second")), answer("ok2")]);
    expect(fitted.prompt).toEqual(long.prompt);
  });

  it("drops a call together with its output, even when the output shares a turn with text", () => {
    const long = conversation([
      user(big("first")),
      call("c1"),
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "c1", content: big("out") },
          { type: "text", text: "also" },
        ],
      },
      answer("sunny"),
    ]);
    const fitted = fitConversation(long, budget(200), "auto");
    expect(fitted.seed).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: DROPPED_NOTE },
          { type: "text", text: "also" },
        ],
      },
      answer("sunny"),
    ]);
  });

  it("keeps the answer whose calls the last turn replies to, and refuses when even that is too long", () => {
    const pending = {
      ...conversation(
        [user(big("first")), call("c1"), output("c1", "cloudy"), call("c2")],
        [{ type: "tool_result", tool_use_id: "c2", content: "rainy" }],
      ),
      pending: [{ kind: "client_tool" as const, id: "c2", name: "get_weather", input: {} }],
    };
    expect(fitConversation(pending, budget(100), "auto").seed).toEqual([
      user(DROPPED_NOTE),
      call("c1"),
      output("c1", "cloudy"),
      call("c2"),
    ]);
    const fitted = fitConversation(pending, budget(60), "auto");
    expect(fitted.seed).toEqual([user(DROPPED_NOTE), call("c2")]);
    expect(fitted.prompt).toEqual(pending.prompt);
    expect(() => fitConversation(pending, budget(20), "auto")).toThrow(
      expect.objectContaining({ wireCode: "context_length_exceeded" }),
    );
  });

  it("tells a refused auto request what must fit, not to set truncation to auto", () => {
    const long = conversation([answer("ok")], [{ type: "text", text: big("question") }]);
    const refusal = (mode: "auto" | "disabled") => {
      try {
        fitConversation(long, budget(60), mode);
      } catch (error) {
        return (error as Error).message;
      }
      return expect.unreachable("the conversation should not fit");
    };
    expect(refusal("disabled")).toContain('set truncation to "auto"');
    expect(refusal("auto")).not.toContain('set truncation to "auto"');
    expect(refusal("auto")).toContain("last user turn");
  });

  it("puts the note before the last user turn when every earlier turn goes", () => {
    const long = conversation([user(big("first")), answer(big("ok"))]);
    const fitted = fitConversation(long, budget(60), "auto");
    expect(fitted.seed).toEqual([]);
    expect(fitted.prompt).toEqual([
      { type: "text", text: DROPPED_NOTE },
      { type: "text", text: "and now?" },
    ]);
  });
});
