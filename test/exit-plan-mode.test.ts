import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CanUseTool, PermissionResult } from "../src/index.js";
import { type MockRequest, mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const anthropic = FORMATS[0];
const PLAN = "1. Write notes.txt with the summary\n2. Done";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-exit-plan-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The model presents its plan, then writes a file, then answers. */
const script = (file: string) => ({
  turns: [
    mockTurn.toolUse("ExitPlanMode", { plan: PLAN }),
    mockTurn.toolUse("Write", { file_path: file, content: "summary\n" }),
    mockTurn.text("Done."),
  ],
});

/** The tool results the request sent back to the model as text (Anthropic wire format). */
function lastToolOutput(request: MockRequest | undefined): string {
  const messages = (request?.body as { messages: Array<{ content: unknown }> }).messages;
  return JSON.stringify(messages.at(-1)?.content);
}

/** A canUseTool that answers ExitPlanMode with `plan` and records every question. */
function answering(plan: PermissionResult, asked: string[]): CanUseTool {
  return async (toolName, input) => {
    asked.push(toolName === "ExitPlanMode" ? `${toolName}: ${String(input.plan)}` : toolName);
    return toolName === "ExitPlanMode" ? plan : { behavior: "deny", message: "not asked for" };
  };
}

describe("ExitPlanMode through canUseTool", () => {
  it("an approval with acceptEdits leaves plan mode for it: the edit runs without another question", async () => {
    const file = join(dir, "accept.txt");
    await withMock(script(file), async (server) => {
      const asked: string[] = [];
      const approve: PermissionResult = {
        behavior: "allow",
        updatedPermissions: [{ type: "setMode", mode: "acceptEdits", destination: "session" }],
      };
      const messages = await runQuery(server, anthropic, "Summarize into notes", {
        cwd: dir,
        permissionMode: "plan",
        canUseTool: answering(approve, asked),
      });
      expect(asked).toEqual([`ExitPlanMode: ${PLAN}`]);
      expect(resultOf(messages)).toMatchObject({ terminal_reason: "completed", result: "Done." });
      expect(lastToolOutput(server.requests[1])).toContain("User has approved your plan. You can now start coding.");
      expect(readFileSync(file, "utf8")).toBe("summary\n");
      // The model is told it is planning while it is, and no longer once the plan is approved.
      expect(JSON.stringify(server.requests[0]?.body)).toContain("Plan mode is active");
      expect(JSON.stringify(server.requests[1]?.body)).not.toContain("Plan mode is active");
    });
  });

  it("an approval that names no mode leaves plan mode for default: the edit is asked about", async () => {
    const file = join(dir, "default.txt");
    await withMock(script(file), async (server) => {
      const asked: string[] = [];
      const messages = await runQuery(server, anthropic, "Summarize into notes", {
        cwd: dir,
        permissionMode: "plan",
        canUseTool: answering({ behavior: "allow" }, asked),
      });
      expect(asked).toEqual([`ExitPlanMode: ${PLAN}`, "Write"]);
      expect(resultOf(messages).result).toBe("Done.");
      expect(existsSync(file)).toBe(false);
    });
  });

  it("a denial keeps planning: the model gets the feedback, and an edit is still refused by plan mode", async () => {
    const file = join(dir, "denied.txt");
    await withMock(script(file), async (server) => {
      const asked: string[] = [];
      const feedback = "Also cover the error cases before writing anything.";
      const messages = await runQuery(server, anthropic, "Summarize into notes", {
        cwd: dir,
        permissionMode: "plan",
        canUseTool: answering({ behavior: "deny", message: feedback }, asked),
      });
      expect(asked).toEqual([`ExitPlanMode: ${PLAN}`]);
      expect(resultOf(messages).permission_denials).toMatchObject([
        { tool_name: "ExitPlanMode" },
        { tool_name: "Write" },
      ]);
      expect(lastToolOutput(server.requests[1])).toContain(feedback);
      expect(lastToolOutput(server.requests[2])).toContain("not available in plan mode");
      expect(existsSync(file)).toBe(false);
      expect(JSON.stringify(server.requests[2]?.body)).toContain("Plan mode is active");
    });
  });

  it("outside plan mode the call is refused without asking anyone", async () => {
    const turns = [mockTurn.toolUse("ExitPlanMode", { plan: PLAN }), mockTurn.text("Carrying on.")];
    await withMock({ turns }, async (server) => {
      const asked: string[] = [];
      const messages = await runQuery(server, anthropic, "Summarize into notes", {
        cwd: dir,
        canUseTool: answering({ behavior: "allow" }, asked),
      });
      expect(asked).toEqual([]);
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(lastToolOutput(server.requests[1])).toContain("the run is not in plan mode");
    });
  });
});

describe("ExitPlanMode against a hostile model", () => {
  it("with nobody to approve, a plan leaves plan mode neither by itself nor by an allow rule: the edit stays refused", async () => {
    const file = join(dir, "unapproved.txt");
    await withMock(script(file), async (server) => {
      const messages = await runQuery(server, anthropic, "Summarize into notes", {
        cwd: dir,
        permissionMode: "plan",
        allowedTools: ["ExitPlanMode"],
      });
      expect(toolResults(messages).map((result) => result.is_error)).toEqual([true, true]);
      expect(existsSync(file)).toBe(false);
    });
  });
});
