import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import type { SDKMessage } from "../src/protocol/index.js";
import { openPostgresSessionStore, openSqliteSessionStore, type SessionStore } from "../src/sessions/index.js";
import { type MockLLMServer, mockTurn, startMockLLM } from "../src/testing/index.js";
import { toolResults } from "./helpers.js";
import { exitOf, killAll, requireBuiltCli, startServe } from "./serve-process.js";
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from "./sessions-postgres-helper.js";

// A response's run commits each step to the server's store as the loop makes it: `gyre serve`
// killed (-9) in the middle of a response leaves, in the store, the model turns that finished
// and the results of the tools they called.

const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(requireBuiltCli);
afterEach(async () => {
  killAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const SECRET = "the notes say: rotate the keys on Friday";

/** Where the run reads (the built-in tools' workspace), the config that enables Glob and Read there, and the upstream. */
async function setUp(): Promise<{ workspace: string; config: string; mock: MockLLMServer }> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), "gyre-serve-crash-")));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  writeFileSync(join(workspace, "notes.txt"), `${SECRET}\n`);
  const config = join(workspace, "serve.yaml");
  writeFileSync(config, `tools: [Read, Glob]\nworkspace: ${workspace}\n`);
  // Two turns that call tools, then a third the upstream holds: the server is killed while it waits.
  const mock = await startMockLLM({
    script: {
      turns: [
        mockTurn.toolUse("Glob", { pattern: "*.txt" }, { id: "toolu_glob" }),
        mockTurn.toolUse("Read", { file_path: join(workspace, "notes.txt") }, { id: "toolu_read" }),
        mockTurn.text("Never sent.", { delayMs: 600_000 }),
      ],
    },
  });
  cleanups.push(() => mock.close());
  return { workspace, config, mock };
}

/** Starts a streamed response and returns its id (from `response.created`), leaving the stream open. */
async function startResponse(url: string): Promise<string> {
  const answer = await fetch(`${url}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: "anthropic/claude-sonnet-4-5", input: "Read the notes.", stream: true }),
  });
  const reader = answer.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before response.created: ${text}`);
    text += value;
    const id = /"type":"response\.created","response":\{"id":"(resp_[0-9a-f]+)"/.exec(text)?.[1];
    if (id) {
      // The rest of the stream is read (and its end, when the server dies, ignored).
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return id;
    }
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let attempt = 0; attempt < 400; attempt++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** What the killed server left in `store` of response `id`: its record and its run's finished steps. */
async function expectFinishedSteps(store: SessionStore, id: string, workspace: string): Promise<void> {
  expect(await store.records?.responses.get(id)).toMatchObject({ status: "in_progress", runSessionId: `${id}-run` });
  const messages: SDKMessage[] = await store.getSessionMessages(`${id}-run`);
  const calls = messages.flatMap((message) =>
    message.type === "assistant" ? message.message.content.filter((block) => block.type === "tool_use") : [],
  );
  expect(calls).toEqual([
    expect.objectContaining({ id: "toolu_glob", name: "Glob", input: { pattern: "*.txt" } }),
    expect.objectContaining({ id: "toolu_read", name: "Read", input: { file_path: join(workspace, "notes.txt") } }),
  ]);
  const results = toolResults(messages);
  expect(results.map((result) => [result.tool_use_id, result.is_error ?? false])).toEqual([
    ["toolu_glob", false],
    ["toolu_read", false],
  ]);
  expect(JSON.stringify(results[0]?.content)).toContain("notes.txt");
  expect(JSON.stringify(results[1]?.content)).toContain(SECRET);
  // The run never finished: no result closes it.
  expect(messages.filter((message) => message.type === "result")).toEqual([]);
}

/** Runs a response on `gyre serve ARGS` until the upstream has its third request, then kills the server. */
async function killMidRun(args: string[], env: Record<string, string>): Promise<{ id: string; workspace: string }> {
  const { workspace, config, mock } = await setUp();
  const { child, url } = await startServe(["--config", config, ...args], { ...mock.env(), ...env });
  const id = await startResponse(url);
  // The third request goes out once the second turn's tool result is recorded.
  await until(() => mock.requests.length === 3, "the third model request");
  child.kill("SIGKILL");
  await exitOf(child);
  return { id, workspace };
}

describe("gyre serve killed (-9) in the middle of a response", () => {
  it("leaves its finished model turns and tool results in the SQLite store", async () => {
    const db = join(mkdtempSync(join(tmpdir(), "gyre-serve-crash-db-")), "serve.db");
    cleanups.push(() => rmSync(join(db, ".."), { recursive: true, force: true }));
    const { id, workspace } = await killMidRun(["--store", `sqlite:${db}`], {});
    const store = openSqliteSessionStore({ path: db });
    cleanups.push(() => store.close());
    await expectFinishedSteps(store, id, workspace);
  });

  it("leaves them in the PostgreSQL store (GYRE_STORE_URL, a schema of its own)", async () => {
    const schema = testSchemaName();
    cleanups.push(() => dropSchema(schema));
    const { id, workspace } = await killMidRun([], { GYRE_STORE_URL: `${TEST_DATABASE_URL}?schema=${schema}` });
    const store = await openPostgresSessionStore({ connectionString: TEST_DATABASE_URL, schema });
    cleanups.push(() => store.close());
    await expectFinishedSteps(store, id, workspace);
  });
});
