import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { ProgressLine } from "./progress-line.js";
import { RunReporter } from "./run-reporter.js";

const ids = { uuid: "u", session_id: "s" };

function assistant(content: Array<Record<string, unknown>>, costUsd?: number): SDKMessage {
  return {
    type: "assistant",
    ...ids,
    parent_tool_use_id: null,
    ...(costUsd !== undefined && { cost_usd: costUsd }),
    message: {
      id: "msg",
      type: "message",
      role: "assistant",
      model: "m",
      content: content as never,
      stop_reason: "tool_use",
      stop_sequence: null,
      usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
    },
  };
}

function toolResult(id: string, isError = false): SDKMessage {
  return {
    type: "user",
    ...ids,
    parent_tool_use_id: null,
    message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "out", is_error: isError }] },
  };
}

const bash = (id: string, command: string) => ({ type: "tool_use", id, name: "Bash", input: { command } });

describe("ProgressLine", () => {
  it("shows the model at work, then the running tool with its time, the turn and the cost so far", () => {
    let now = 0;
    const line = new ProgressLine(() => now);
    now = 2500;
    expect(line.text(0)).toBe("⠋ thinking 2s · turn 1");
    line.observe(assistant([bash("t1", "npm test")], 0.0123));
    now = 6000;
    expect(line.text(1)).toBe("⠙ Bash npm test 3s · turn 1 · $0.0123");
    line.observe(toolResult("t1"));
    line.observe(assistant([{ type: "text", text: "done" }], 0.01));
    expect(line.text(2)).toBe("⠹ thinking 6s · turn 2 · $0.0223");
  });

  it("drops a denied call and fits the width", () => {
    const line = new ProgressLine(() => 0);
    line.observe(assistant([bash("t1", "a very long command ".repeat(5))]));
    expect(line.text(0, 30)).toHaveLength(30);
    expect(line.text(0, 30).endsWith("…")).toBe(true);
    line.observe({
      type: "system",
      subtype: "permission_denied",
      ...ids,
      tool_use_id: "t1",
      tool_name: "Bash",
      tool_input: {},
      message: "no",
    });
    expect(line.text(0)).toBe("⠋ thinking 0s · turn 1");
  });
});

describe("RunReporter on stderr", () => {
  const denied: SDKMessage = {
    type: "system",
    subtype: "permission_denied",
    ...ids,
    tool_use_id: "t1",
    tool_name: "Write",
    tool_input: { file_path: "/etc/x" },
    message: "Write needs permission, and nobody can be asked in print mode.\nMore.",
  };

  it("without a terminal writes only what matters: a denied call, one line", () => {
    const written: string[] = [];
    const reporter = new RunReporter({
      format: "text",
      verbose: false,
      debug: false,
      stderr: { write: (t) => written.push(t) },
    });
    reporter.message(assistant([bash("t1", "ls")]));
    reporter.message(toolResult("t1"));
    reporter.message(denied);
    reporter.close();
    expect(written).toEqual(["gyre: Write denied: Write needs permission, and nobody can be asked in print mode.\n"]);
  });

  it("leaves denials to the stream with stream-json, which carries the message", () => {
    const written: string[] = [];
    const stderr = { write: (t: string) => written.push(t), isTTY: true };
    const reporter = new RunReporter({ format: "stream-json", verbose: true, debug: false, stderr });
    reporter.message(denied);
    reporter.close();
    expect(written).toEqual([]);
  });

  it("on a terminal draws a progress line, clears it for each line written, and takes it away at the end", async () => {
    const written: string[] = [];
    const stderr = { write: (t: string) => written.push(t), isTTY: true, columns: 60 };
    const reporter = new RunReporter({ format: "text", verbose: false, debug: false, stderr });
    reporter.message(assistant([bash("t1", "npm test")]));
    // Redrawn ten times a second: wait (bounded) for the first frame.
    for (let tries = 0; tries < 100 && !written.some((text) => text.includes("Bash npm test")); tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(written.find((text) => text.includes("Bash npm test"))).toMatch(
      /^\r\x1b\[2K[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Bash npm test \d+s · turn 1$/,
    );
    reporter.message(denied);
    const line = written.indexOf(
      "gyre: Write denied: Write needs permission, and nobody can be asked in print mode.\n",
    );
    expect(written[line - 1]).toBe("\r\x1b[2K");
    // The line comes back with the next frame, without the denied call; closing takes it off.
    for (let tries = 0; tries < 100 && written.length === line + 1; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(written[line + 1]).toMatch(/thinking \d+s · turn 1$/);
    reporter.close();
    expect(written.at(-1)).toBe("\r\x1b[2K");
    const after = written.length;
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(written).toHaveLength(after);
  });
});
