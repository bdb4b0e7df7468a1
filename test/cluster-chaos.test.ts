import { createServer, type Server } from "node:http";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import OpenAI from "openai";
import { afterEach, beforeAll, expect, it } from "vitest";
import { z } from "zod";
import type { SDKMessage } from "../src/protocol/index.js";
import { openPostgresSessionStore } from "../src/sessions/index.js";
import { mockTurn, type MockRoute, startMockLLM } from "../src/testing/index.js";
import { startWorker, testQueue, until } from "./cluster-process.js";
import { exitOf, killAll, requireBuiltCli, startServe } from "./serve-process.js";
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from "./sessions-postgres-helper.js";

// Chaos on a real cluster: two `gyre serve --queue` instances and two `gyre worker`s on the real
// Redis and PostgreSQL, dozens of background responses of several model turns each (an MCP call
// whose side effect must happen at most once, a built-in Glob, a slowly streamed answer), and
// processes killed (-9) and started again while they run. Every response completes with its own
// answer; no model turn the run committed is requested again; the non-idempotent call ran at
// most once; every stream followed through the other instance ends once; a cancel through the
// other instance stops a running response.

const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(requireBuiltCli);
afterEach(async () => {
  killAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const RESPONSES = 24;
const MODEL = "anthropic/claude-sonnet-4-5";

/** An MCP server whose one tool records each call: the side effect a takeover must not repeat. */
async function recorder(): Promise<{ url: string; calls: string[] }> {
  const calls: string[] = [];
  const http: Server = createServer(async (request, response) => {
    if (request.method !== "POST") return void response.writeHead(405).end();
    const mcp = new McpServer({ name: "rec", version: "1.0.0" });
    mcp.registerTool(
      "record",
      { description: "Records a token.", inputSchema: { token: z.string() } },
      async ({ token }) => {
        calls.push(token);
        return { content: [{ type: "text", text: `recorded ${token}` }] };
      },
    );
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    response.on("close", () => void mcp.close());
    await mcp.connect(transport);
    await transport.handleRequest(request, response);
  });
  await new Promise<void>((listening) => http.listen(0, "127.0.0.1", listening));
  cleanups.push(() => new Promise<void>((closed) => http.close(() => closed())));
  return { url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`, calls };
}

/** Response k's own turns, picked by its instructions: record, glob, then its answer streamed over a second or two. */
function route(k: number, workspace: string): MockRoute {
  return {
    system: `[job ${k}]`,
    turns: [
      { ...mockTurn.toolUse("mcp__rec__record", { token: `t${k}` }, { id: `toolu_rec_${k}` }), delayMs: 300 },
      { ...mockTurn.toolUse("Glob", { pattern: "*.txt", path: workspace }, { id: `toolu_glob_${k}` }), delayMs: 300 },
      mockTurn.text(`answer ${k}: ${"word ".repeat(12)}done`, { chunkDelayMs: 120 }),
    ],
  };
}

async function eventsOf(response: Response): Promise<Array<{ type: string; sequence_number: number }>> {
  const text = await response.text();
  return text
    .split("\n")
    .filter((line) => line.startsWith("data: ") && line !== "data: [DONE]")
    .map((line) => JSON.parse(line.slice("data: ".length)));
}

it("every response completes once with its own answer while serve and worker processes are killed and restarted", async () => {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), "gyre-chaos-")));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  writeFileSync(join(workspace, "notes.txt"), "notes\n");
  const config = join(workspace, "serve.yaml");
  writeFileSync(config, `tools: [Glob]\nworkspace: ${workspace}\nmcpAllowedHosts: ["127.0.0.1"]\n`);
  const schema = testSchemaName();
  cleanups.push(() => dropSchema(schema));
  const queue = testQueue();
  cleanups.push(queue.clean);
  const rec = await recorder();
  const routes = [...Array.from({ length: RESPONSES }, (_, k) => route(k, workspace))];
  const held: MockRoute = { system: "[job held]", turns: [mockTurn.text("Never sent.", { delayMs: 600_000 })] };
  const mock = await startMockLLM({ script: { turns: [], routes: [...routes, held] } });
  cleanups.push(() => mock.close());
  const store = `${TEST_DATABASE_URL}?schema=${schema}`;
  const shared = ["--config", config, "--store", store, "--queue", queue.url];
  const front = async () => (await startServe([...shared, "--concurrency", "0", "--quiet"], mock.env())).url;
  const clientOf = (url: string) => new OpenAI({ baseURL: url, apiKey: "unused", maxRetries: 0 });

  let a = await startServe([...shared, "--concurrency", "0", "--quiet"], mock.env());
  const b = await front();
  const w1 = await startWorker(shared, mock.env());
  const w2 = await startWorker(shared, mock.env());

  // Posted through A, followed through B from the first event.
  const ids: string[] = [];
  const followed: Array<Promise<Array<{ type: string; sequence_number: number }>>> = [];
  for (let k = 0; k < RESPONSES; k++) {
    const response = await clientOf(a.url).responses.create({
      model: MODEL,
      instructions: `[job ${k}]`,
      input: "Record, look, answer.",
      background: true,
      tools: [{ type: "mcp", server_label: "rec", server_url: rec.url, require_approval: "never" }],
    });
    ids.push(response.id);
    followed.push(fetch(`${b}/responses/${response.id}?stream=true`).then(eventsOf));
  }
  const heldResponse = await clientOf(a.url).responses.create({
    model: MODEL,
    instructions: "[job held]",
    input: "Hold on.",
    background: true,
  });

  // Kill -9 and start again: a worker, the instance the responses were posted to, the other worker.
  const stored = openPostgresSessionStore({ connectionString: TEST_DATABASE_URL, schema });
  const storeReady = await stored;
  cleanups.push(() => storeReady.close());
  const running = async () =>
    (await Promise.all(ids.map((id) => storeReady.records!.responses.get(id)))).filter(
      (row) => row?.status === "in_progress",
    ).length;
  await until(async () => (await running()) >= RESPONSES / 2, "half the responses running");
  w1.child.kill("SIGKILL");
  await exitOf(w1.child);
  await startWorker(shared, mock.env());
  a.child.kill("SIGKILL");
  await exitOf(a.child);
  a = await startServe([...shared, "--concurrency", "0", "--quiet"], mock.env());
  await until(() => mock.requests.filter((request) => request.turn === 2).length >= 4, "answers streaming");
  w2.child.kill("SIGKILL");
  await exitOf(w2.child);
  await startWorker(shared, mock.env());

  // A cancel through the instance that did not take the request stops it where it runs.
  const heldRoute = routes.length;
  await until(() => mock.requests.some((request) => request.route === heldRoute), "the held response's model request");
  const cancelled = await clientOf(b).responses.cancel(heldResponse.id);
  expect(cancelled.status).toBe("cancelled");

  const streams = await Promise.all(followed);
  for (const [k, id] of ids.entries()) {
    const response = await clientOf(a.url).responses.retrieve(id);
    expect({ k, status: response.status, error: response.error }).toEqual({ k, status: "completed", error: null });
    expect(response.output_text).toBe(`answer ${k}: ${"word ".repeat(12)}done`);
    // The stream followed through B: numbered without gap or repeat, one terminal event, last.
    const events = streams[k]!;
    expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.filter((event) => /^response\.(completed|failed|incomplete)$/.test(event.type))).toHaveLength(1);
    expect(events.at(-1)?.type).toBe("response.completed");
    // The MCP call, not idempotent, ran at most once (once, unless its worker died while it ran).
    expect(rec.calls.filter((token) => token === `t${k}`).length).toBeLessThanOrEqual(1);
    // Each turn the run committed is the answer to the last request for it: none was asked again after its commit.
    const messages: SDKMessage[] = await storeReady.getSessionMessages(`${id}-run`);
    const answers = messages.flatMap((message) =>
      message.type === "assistant" && message.parent_tool_use_id === null ? [message.message.id] : [],
    );
    const asked = (turn: number) => mock.requests.filter((request) => request.route === k && request.turn === turn);
    expect(answers).toEqual([0, 1, 2].map((turn) => `msg_mock_${asked(turn).at(-1)?.seq}`));
  }
  // Something was really taken over: more model requests than turns.
  expect(mock.requests.filter((request) => request.route !== heldRoute).length).toBeGreaterThan(RESPONSES * 3);
}, 180_000);
