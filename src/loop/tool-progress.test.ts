import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { SDKMessage, SDKToolProgressMessage } from "../protocol/index.js";
import { defineTool } from "../tools/index.js";
import { drain, type Harness, harness, lastAnswer, manualTime, modelAnswered, toolUse } from "./loop.test-harness.js";
import { toolsStep } from "./steps/tools.js";
import { TOOL_PROGRESS_INTERVAL_MS, TOOL_PROGRESS_THRESHOLD_MS, ToolProgress } from "./tool-progress.js";

// Besides the message every call starts with (at 0 s, see tool-call.ts), tool_progress is for
// calls that take a while: none before the threshold, then one per interval until the call
// ends. Time is the harness's manual clock: nothing here sleeps.

/** A tool whose calls stay open until the test releases them; it reports what the test tells it to. */
function heldTool() {
  let release: (value: string) => void = () => {};
  let report: (data: unknown) => void = () => {};
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  const tool = defineTool({
    name: "build",
    description: "Builds the project (as long as the test wants).",
    inputSchema: z.object({}),
    readOnly: true,
    execute: (_input, context) => {
      report = (data) => context.reportProgress(data);
      started();
      return new Promise<string>((resolve) => {
        release = resolve;
      });
    },
  });
  return { tool, running, release: (text: string) => release(text), report: (data: unknown) => report(data) };
}

/** The progress messages after the call's start. */
const progressOf = (messages: SDKMessage[]): SDKToolProgressMessage[] =>
  messages.flatMap((message) =>
    message.type === "tool_progress" && message.elapsed_time_seconds > 0 ? [message] : [],
  );

function setup(tool: ReturnType<typeof heldTool>["tool"]): Harness {
  const h = harness({ tools: [tool] });
  modelAnswered(h, [toolUse("c1", "build", {})]);
  return h;
}

describe("tool_progress from the tools step", () => {
  it("sends none for a call that ends before the threshold, and leaves no timer behind", async () => {
    const held = heldTool();
    const h = setup(held.tool);
    const step = drain(toolsStep(h.context, h.state, lastAnswer(h)));
    await held.running;
    held.report({ line: "compiling" });
    h.time.advance(TOOL_PROGRESS_THRESHOLD_MS - 1);
    held.release("built");
    const { messages } = await step;
    expect(progressOf(messages)).toEqual([]);
    // The call's start, then its result.
    expect(messages.map((message) => message.type)).toEqual(["tool_progress", "user"]);
    expect(h.time.pending()).toBe(0);
  });

  it("sends the first at the threshold, then one per interval with the elapsed time, until the call ends", async () => {
    const held = heldTool();
    const h = setup(held.tool);
    const step = toolsStep(h.context, h.state, lastAnswer(h));
    expect((await step.next()).value).toMatchObject({ type: "tool_progress", elapsed_time_seconds: 0 });
    const first = step.next();
    await held.running;
    h.time.advance(TOOL_PROGRESS_THRESHOLD_MS - 1);
    h.time.advance(1);
    expect((await first).value).toEqual({
      type: "tool_progress",
      tool_use_id: "c1",
      tool_name: "build",
      parent_tool_use_id: null,
      elapsed_time_seconds: TOOL_PROGRESS_THRESHOLD_MS / 1000,
      uuid: expect.any(String),
      session_id: h.context.stamp.sessionId,
    });
    // What the tool reports rides on the next message; the latest report wins.
    held.report({ line: "linking 1/2" });
    held.report({ line: "linking 2/2" });
    h.time.advance(TOOL_PROGRESS_INTERVAL_MS);
    h.time.advance(TOOL_PROGRESS_INTERVAL_MS / 2);
    held.release("built");
    const rest = await drain(step);
    const progress = progressOf(rest.messages);
    expect(progress.map((message) => [message.elapsed_time_seconds, message.data])).toEqual([
      [(TOOL_PROGRESS_THRESHOLD_MS + TOOL_PROGRESS_INTERVAL_MS) / 1000, { line: "linking 2/2" }],
    ]);
    expect(rest.messages.at(-1)?.type).toBe("user");
    expect(h.time.pending()).toBe(0);
  });
});

describe("ToolProgress", () => {
  function schedule() {
    const time = manualTime(0);
    const sent: Array<[number, unknown]> = [];
    const progress = new ToolProgress({
      timers: time.timers,
      now: time.now,
      emit: (elapsed, data) => sent.push([elapsed, data]),
    });
    return { time, sent, progress };
  }

  it("keeps sending, one per interval, with the elapsed time growing, as long as the call runs", () => {
    const { time, sent, progress } = schedule();
    time.advance(TOOL_PROGRESS_THRESHOLD_MS + 3 * TOOL_PROGRESS_INTERVAL_MS);
    const seconds = (ms: number) => ms / 1000;
    expect(sent).toEqual(
      [0, 1, 2, 3].map((n) => [seconds(TOOL_PROGRESS_THRESHOLD_MS + n * TOOL_PROGRESS_INTERVAL_MS), undefined]),
    );
    progress.stop();
    time.advance(10 * TOOL_PROGRESS_INTERVAL_MS);
    expect(sent).toHaveLength(4);
    expect(time.pending()).toBe(0);
  });

  it("drops a report that comes after the call ended", () => {
    const { time, sent, progress } = schedule();
    progress.stop();
    progress.report("late");
    time.advance(TOOL_PROGRESS_THRESHOLD_MS);
    expect(sent).toEqual([]);
  });
});
