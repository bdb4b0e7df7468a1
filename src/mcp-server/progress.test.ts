import { describe, expect, it } from "vitest";
import type { SDKMessage } from "../protocol/index.js";
import { describeProgress, ProgressReporter } from "./progress.js";

function assistant(content: unknown[]): SDKMessage {
  return { type: "assistant", message: { content } } as unknown as SDKMessage;
}

describe("describeProgress", () => {
  it("names each tool call by its telling argument, and each answer by its text", () => {
    const message = assistant([
      { type: "thinking", thinking: "hmm", signature: "s" },
      { type: "text", text: "  Let me look.  " },
      { type: "tool_use", id: "1", name: "Bash", input: { command: "npm test", description: "run tests" } },
      { type: "tool_use", id: "2", name: "Read", input: { file_path: "/a/b.ts" } },
      { type: "tool_use", id: "3", name: "mcp__x__y", input: { n: 1 } },
    ]);
    expect(describeProgress(message)).toEqual([
      "Let me look.",
      "Bash: npm test",
      "Read: /a/b.ts",
      'mcp__x__y: {"n":1}',
    ]);
  });

  it("says nothing of other messages", () => {
    expect(describeProgress({ type: "user" } as unknown as SDKMessage)).toEqual([]);
  });
});

describe("ProgressReporter", () => {
  it("sends a growing count with one-line, clipped messages when the client gave a token", async () => {
    const sent: unknown[] = [];
    const reporter = new ProgressReporter({
      _meta: { progressToken: "t" },
      sendNotification: async (notification) => void sent.push(notification),
    });
    await reporter.report("one\ntwo");
    await reporter.report("x".repeat(500));
    expect(sent).toEqual([
      { method: "notifications/progress", params: { progressToken: "t", progress: 1, message: "one two" } },
      { method: "notifications/progress", params: { progressToken: "t", progress: 2, message: `${"x".repeat(119)}…` } },
    ]);
  });

  it("sends nothing without a token, and survives a client that went away", async () => {
    let calls = 0;
    const silent = new ProgressReporter({ sendNotification: async () => void calls++ });
    await silent.report("hi");
    expect(calls).toBe(0);
    const gone = new ProgressReporter({
      _meta: { progressToken: 1 },
      sendNotification: () => Promise.reject(new Error("Not connected")),
    });
    await expect(gone.report("hi")).resolves.toBeUndefined();
  });
});
