import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { SessionInfo } from "../sessions/index.js";
import { choiceLine, chooseSession } from "./resume-picker.js";

const session = (id: string, title: string | null): SessionInfo =>
  ({
    id,
    cwd: "/p",
    project: "/p",
    title,
    model: null,
    createdAt: 0,
    updatedAt: Date.UTC(2026, 10, 27, 21, 40),
    parentId: null,
    parentToolUseId: null,
    forkedFromMessage: null,
    messageCount: 4,
    costUsd: 0,
  }) as SessionInfo;

/** Runs the picker over in-memory streams, writing `typed` as the person's keys; returns the choice and what was shown. */
async function pick(sessions: SessionInfo[], typed: string, end = false) {
  const input = new PassThrough();
  const output = new PassThrough();
  let shown = "";
  output.on("data", (chunk: Buffer) => (shown += chunk.toString()));
  const choice = chooseSession(sessions, { input, output });
  input.write(typed);
  if (end) input.end();
  return { choice: await choice, shown: () => shown };
}

describe("chooseSession", () => {
  const sessions = [session("a", "newest"), session("b", "older")];

  it("lists the sessions numbered and takes the one whose number is typed", async () => {
    const { choice, shown } = await pick(sessions, "2\n");
    expect(choice?.id).toBe("b");
    expect(shown()).toContain("  1. 2026-11-27 21:40    4 msgs  newest\n  2. ");
  });

  it("takes the newest on Enter alone, and asks again after an answer that names none", async () => {
    expect((await pick(sessions, "\n")).choice?.id).toBe("a");
    const { choice, shown } = await pick(sessions, "7\nx\n2\n");
    expect(choice?.id).toBe("b");
    expect(shown().match(/Type a number from 1 to 2\./g)).toHaveLength(2);
  });

  it("chooses nothing when input ends first", async () => {
    expect((await pick(sessions, "9\n", true)).choice).toBeUndefined();
  });
});

describe("choiceLine", () => {
  it("shows a title on one line without terminal escapes, cut to fit", () => {
    const line = choiceLine(session("a", `fix\x1b[2Jthis\nnow ${"x".repeat(200)}`), 1);
    expect(line).not.toMatch(/[\x00-\x1f]/);
    expect(line).toContain("fix [2Jthis now x");
    expect(line.endsWith("…")).toBe(true);
    expect(choiceLine(session("a", null), 3)).toContain("  3. ");
  });
});
