import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AskUserQuestionInput, CanUseTool, SDKMessage } from "../src/index.js";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { type MockRequest, mockTurn } from "../src/testing/index.js";
import { cliEnv, FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

const anthropic = FORMATS[0];

const QUESTIONS: AskUserQuestionInput["questions"] = [
  {
    question: "Which date library should we use?",
    header: "Library",
    options: [
      { label: "date-fns", description: "Small functions, tree-shakable" },
      { label: "Luxon", description: "Time zones built in" },
    ],
    multiSelect: false,
  },
  {
    question: "Which formats do you need?",
    header: "Formats",
    options: [
      { label: "ISO", description: "2026-11-29" },
      { label: "US", description: "11/29/2026" },
      { label: "EU", description: "29.11.2026" },
    ],
    multiSelect: true,
  },
];

const ANSWERS = { "Which date library should we use?": "date-fns", "Which formats do you need?": "ISO, EU" };

const script = () => ({
  turns: [mockTurn.toolUse("AskUserQuestion", { questions: QUESTIONS }), mockTurn.text("Noted.")],
});

/** The text of the tool results the second request sent back to the model (Anthropic wire format). */
function toolOutputText(request: MockRequest | undefined): string {
  const messages = (request?.body as { messages: Array<{ content: unknown }> }).messages;
  return JSON.stringify(messages.at(-1)?.content);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-ask-user-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("AskUserQuestion through the loop", () => {
  it("asks canUseTool, whose updatedInput answers; the model is told the answers", async () => {
    await withMock(script(), async (server) => {
      const asked: Array<{ toolName: string; input: Record<string, unknown> }> = [];
      const canUseTool: CanUseTool = async (toolName, input) => {
        asked.push({ toolName, input });
        return { behavior: "allow", updatedInput: { ...input, answers: ANSWERS } };
      };
      // bypassPermissions allows every call, yet a question still goes to the person.
      const messages = await runQuery(server, anthropic, "Add date formatting", {
        canUseTool,
        permissionMode: "bypassPermissions",
      });
      expect(asked).toEqual([{ toolName: "AskUserQuestion", input: { questions: QUESTIONS } }]);
      expect(resultOf(messages)).toMatchObject({ terminal_reason: "completed", result: "Noted." });
      const said =
        'User has answered your questions: "Which date library should we use?"="date-fns", ' +
        '"Which formats do you need?"="ISO, EU". You can now continue with the user\'s answers in mind.';
      const [result] = toolResults(messages);
      expect(result).toMatchObject({ content: said });
      expect(result?.is_error).toBeFalsy();
      expect(toolOutputText(server.requests[1])).toContain(JSON.stringify(said).slice(1, -1));
      const user = messages.find(
        (message): message is Extract<SDKMessage, { type: "user" }> =>
          message.type === "user" && message.tool_use_result !== undefined,
      );
      // Keyed by the call it answers, as every tool_use_result is in Gyre.
      expect(Object.values(user?.tool_use_result as object)).toEqual([{ questions: QUESTIONS, answers: ANSWERS }]);
    });
  });

  it("a canUseTool that declines tells the model so", async () => {
    await withMock(script(), async (server) => {
      const messages = await runQuery(server, anthropic, "Add date formatting", {
        canUseTool: async () => ({ behavior: "deny", message: "The user dismissed the questions." }),
      });
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(toolOutputText(server.requests[1])).toContain("The user dismissed the questions.");
      expect(resultOf(messages).permission_denials).toMatchObject([{ tool_name: "AskUserQuestion" }]);
    });
  });

  it("with no one to ask, the call is refused with a clear message and the run goes on", async () => {
    await withMock(script(), async (server) => {
      const messages = await runQuery(server, anthropic, "Add date formatting", {
        permissionMode: "bypassPermissions",
      });
      expect(resultOf(messages)).toMatchObject({ terminal_reason: "completed", result: "Noted." });
      expect(toolOutputText(server.requests[1])).toContain(
        "AskUserQuestion needs a person to answer, and no one can be asked here",
      );
    });
  });

  it("an allow without answers is an error result the model can act on", async () => {
    await withMock(script(), async (server) => {
      const messages = await runQuery(server, anthropic, "Add date formatting", {
        canUseTool: async () => ({ behavior: "allow" }),
      });
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
      expect(toolOutputText(server.requests[1])).toContain("The user did not answer the questions.");
    });
  });

  it("a paused run waits for the answers and goes on with them when resumed", async () => {
    await withMock(script(), async (server) => {
      const store = openSqliteSessionStore({ path: join(dir, "deferred.db") });
      try {
        const options = { sessionStore: store, cwd: dir, persistSession: true };
        const first = await runQuery(server, anthropic, "Add date formatting", {
          ...options,
          canUseTool: async () => ({ behavior: "defer" }),
        });
        const paused = resultOf(first);
        expect(paused.terminal_reason).toBe("requires_action");
        expect(paused.pending_tool_calls).toMatchObject([
          { kind: "approval", name: "AskUserQuestion", input: { questions: QUESTIONS } },
        ]);
        expect(server.requests).toHaveLength(1);
        const id = paused.pending_tool_calls![0]!.id;
        const second = await runQuery(server, anthropic, "", {
          ...options,
          resume: paused.session_id,
          approvals: { [id]: { behavior: "allow", updatedInput: { questions: QUESTIONS, answers: ANSWERS } } },
        });
        expect(resultOf(second)).toMatchObject({ terminal_reason: "completed", result: "Noted." });
        expect(toolOutputText(server.requests[1])).toContain('\\"Which formats do you need?\\"=\\"ISO, EU\\"');
      } finally {
        await store.close();
      }
    });
  });

  it("refuses questions the schema forbids before anyone is asked", async () => {
    const one = [{ ...QUESTIONS[0]!, options: [QUESTIONS[0]!.options[0]] }];
    const turns = [mockTurn.toolUse("AskUserQuestion", { questions: one }), mockTurn.text("Fine.")];
    await withMock({ turns }, async (server) => {
      let asked = 0;
      const messages = await runQuery(server, anthropic, "Add date formatting", {
        canUseTool: async () => {
          asked += 1;
          return { behavior: "allow" };
        },
      });
      expect(asked).toBe(0);
      expect(toolResults(messages)[0]).toMatchObject({ is_error: true });
    });
  });
});

describe("AskUserQuestion in print mode (gyre run)", () => {
  const CLI = resolve("dist/bin/gyre.js");
  const gyre = (args: string[], env: Record<string, string>) =>
    promisify(execFile)(process.execPath, [CLI, "run", ...args, "--cwd", dir, "--setting-sources", ""], {
      env: cliEnv(env),
    }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );

  it("refuses the call when no one can answer, and the run goes on", async () => {
    await withMock(script(), async (server) => {
      const done = await gyre(["add date formatting"], server.env());
      expect(done).toMatchObject({ code: 0, stdout: "Noted.\n" });
      expect(toolOutputText(server.requests[1])).toContain("AskUserQuestion needs a person to answer");
    });
  });

  it("--defer-permissions pauses on the questions, and --resume --answer goes on with the answers", async () => {
    const turns = [
      {
        content: [
          { type: "tool_use" as const, id: "toolu_ask", name: "AskUserQuestion", input: { questions: QUESTIONS } },
        ],
      },
      mockTurn.text("Noted."),
    ];
    await withMock({ turns }, async (server) => {
      const paused = await gyre(
        ["add date formatting", "--defer-permissions", "--output-format", "json"],
        server.env(),
      );
      expect(paused.code).toBe(3);
      const result = JSON.parse(paused.stdout) as Extract<SDKMessage, { type: "result" }>;
      expect(result.pending_tool_calls).toMatchObject([{ id: "toolu_ask", name: "AskUserQuestion" }]);
      expect(paused.stderr).toContain(`--answer 'toolu_ask={"<question>":"<answer>"}'`);

      const bad = await gyre(["--resume", result.session_id, "--answer", "toolu_ask=[1]"], server.env());
      expect(bad.code).toBe(1);
      expect(bad.stderr).toContain("--answer takes ID=");

      const answer = `toolu_ask=${JSON.stringify(ANSWERS)}`;
      const done = await gyre(["--resume", result.session_id, "--answer", answer], server.env());
      expect(done).toMatchObject({ code: 0, stdout: "Noted.\n" });
      expect(toolOutputText(server.requests[1])).toContain('\\"Which date library should we use?\\"=\\"date-fns\\"');
    });
  });
});
