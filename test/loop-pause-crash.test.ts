import { type ChildProcess, execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { type MockRequest, mockTurn } from "../src/testing/index.js";
import { FORMATS, withMock } from "./helpers.js";
import { compileAllForChild, killHard, startLockHolder } from "./sessions-child.js";

let entry: string;
let cleanupCompiled: () => void;
let dir: string;
const children: ChildProcess[] = [];

beforeAll(() => {
  ({ entry, cleanup: cleanupCompiled } = compileAllForChild());
  dir = mkdtempSync(join(tmpdir(), "gyre-pause-crash-"));
});
afterAll(() => {
  cleanupCompiled();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await Promise.all(children.splice(0).map(killHard));
});

/**
 * A real query in its own process with a client-executed tool (get_weather) and a tool whose
 * approval is deferred (write_note). The first run prints the paused result and then stays
 * alive until killed; the resumed run answers from the environment and prints its result.
 */
const CHILD = `
  const { query, defineTool, toolResultsPrompt } = await import(process.env.ENTRY);
  const { openSqliteSessionStore } = await import(process.env.ENTRY.replace(/index\\.js$/, "sessions/index.js"));
  const { z } = await import("zod");
  const { writeFileSync } = await import("node:fs");
  const weather = defineTool({
    name: "get_weather",
    description: "The weather in a city.",
    inputSchema: z.object({ city: z.string() }),
  });
  const note = defineTool({
    name: "write_note",
    description: "Write a note.",
    inputSchema: z.object({ text: z.string() }),
    execute: ({ text }) => { writeFileSync(process.env.NOTES, text); return "noted"; },
  });
  const store = openSqliteSessionStore({ path: process.env.DB });
  const resume = process.env.ANSWERS ? JSON.parse(process.env.ANSWERS) : undefined;
  const q = query({
    prompt: resume ? toolResultsPrompt(resume.results) : "weather in Oslo, and note it",
    options: {
      model: process.env.MODEL,
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: process.env.BASE_URL, OPENAI_API_KEY: "k", OPENAI_BASE_URL: process.env.BASE_URL },
      tools: [weather, note],
      sessionStore: store,
      cwd: process.env.CWD,
      ...(resume ? { resume: process.env.SESSION, approvals: resume.approvals } : { sessionId: process.env.SESSION }),
      canUseTool: async () => ({ behavior: "defer", message: "needs a person" }),
    },
  });
  let result;
  for await (const message of q) if (message.type === "result") result = message;
  process.stdout.write(JSON.stringify(result) + "\\n");
  if (!resume) { process.stdout.write("paused\\n"); setInterval(() => {}, 1 << 30); }
  else await store.close();
`;

/** The tool outputs the request sent back to the model, whatever its wire format. */
function outputs(request: MockRequest | undefined): string[] {
  const text = JSON.stringify(request?.body);
  return ["snow, -3 C", "noted"].filter((output) => text.includes(output));
}

describe.each(FORMATS)("a paused run survives kill -9 and resumes in another process ($name)", (format) => {
  it("the second process answers the client tool and the approval, and the run completes", async () => {
    const script = {
      turns: [
        mockTurn.of([
          { type: "tool_use", id: "call_weather", name: "get_weather", input: { city: "Oslo" } },
          { type: "tool_use", id: "call_note", name: "write_note", input: { text: "Oslo: snow" } },
        ]),
        mockTurn.text("Snow in Oslo, and it is noted."),
      ],
    };
    await withMock(script, async (server) => {
      const db = join(dir, `${format.name}.db`);
      const notes = join(dir, `${format.name}-notes.txt`);
      const env = {
        ENTRY: entry,
        DB: db,
        BASE_URL: server.baseURL,
        MODEL: format.model,
        SESSION: `paused-${format.name}`,
        CWD: dir,
        NOTES: notes,
      };
      const child = await startLockHolder(CHILD, env, "paused");
      children.push(child);
      await killHard(child);
      expect(server.requests).toHaveLength(1);
      expect(existsSync(notes)).toBe(false);

      const store = openSqliteSessionStore({ path: db });
      const stored = await store.getSessionMessages(env.SESSION);
      await store.close();
      const paused = stored.at(-1);
      expect(paused).toMatchObject({ type: "result", terminal_reason: "requires_action" });
      expect(paused?.type === "result" && paused.pending_tool_calls).toMatchObject([
        { kind: "client_tool", id: "call_weather", name: "get_weather", input: { city: "Oslo" } },
        { kind: "approval", id: "call_note", name: "write_note", reason: "needs a person" },
      ]);

      const answers = {
        results: [{ toolUseId: "call_weather", content: "snow, -3 C" }],
        approvals: { call_note: { behavior: "allow" } },
      };
      const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", CHILD], {
        env: { ...process.env, ...env, ANSWERS: JSON.stringify(answers) },
      });
      const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "null");
      expect(result).toMatchObject({
        type: "result",
        subtype: "success",
        terminal_reason: "completed",
        result: "Snow in Oslo, and it is noted.",
      });
      expect(readFileSync(notes, "utf8")).toBe("Oslo: snow");
      expect(server.requests).toHaveLength(2);
      expect(outputs(server.requests[1])).toEqual(["snow, -3 C", "noted"]);
    });
  });
});
