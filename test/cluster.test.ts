import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import OpenAI from "openai";
import pg from "pg";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type MockLLMServer, mockFault, type MockTurn, mockTurn, startMockLLM } from "../src/testing/index.js";
import { startWorker, streamHas, testQueue, until } from "./cluster-process.js";
import { exitOf, killAll, requireBuiltCli, startServe } from "./serve-process.js";
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from "./sessions-postgres-helper.js";

// `gyre serve --queue` and `gyre worker` as a cluster, all real: processes of the built CLI,
// Redis (the queue, events, cancels), PostgreSQL (the store every process shares), and the
// mock LLM as the upstream. Responses posted to one instance run on a worker; their events
// reach the client and any other instance; a cancel through another instance stops the run
// where it runs; a worker killed (-9) mid-run has its run taken over by another worker.

const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(requireBuiltCli);
afterEach(async () => {
  killAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MODEL = "anthropic/claude-sonnet-4-5";
const NOTES = "the notes say: ship on Friday";

interface Cluster {
  mock: MockLLMServer;
  workspace: string;
  /** The flags every process shares: the config, the store, the queue. */
  shared: string[];
  /** The queue's key prefix in Redis. */
  prefix: string;
  /** The PostgreSQL schema of the store. */
  schema: string;
}

/** A workspace with notes, a config that lets runs Read and Glob there, a PostgreSQL schema and a Redis prefix of their own. */
async function cluster(turnsIn: (workspace: string) => MockTurn[]): Promise<Cluster> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), "gyre-cluster-")));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  writeFileSync(join(workspace, "notes.txt"), `${NOTES}\n`);
  const config = join(workspace, "serve.yaml");
  writeFileSync(config, `tools: [Read, Glob]\nworkspace: ${workspace}\n`);
  const schema = testSchemaName();
  cleanups.push(() => dropSchema(schema));
  const queue = testQueue();
  cleanups.push(queue.clean);
  const mock = await startMockLLM({ script: { turns: turnsIn(workspace) } });
  cleanups.push(() => mock.close());
  const store = `${TEST_DATABASE_URL}?schema=${schema}`;
  return {
    mock,
    workspace,
    shared: ["--config", config, "--store", store, "--queue", queue.url],
    prefix: queue.prefix,
    schema,
  };
}

/** A `gyre serve` instance that only answers HTTP (its runs are the workers'). */
async function front(c: Cluster): Promise<{ url: string; client: OpenAI }> {
  const { url } = await startServe([...c.shared, "--concurrency", "0", "--quiet"], c.mock.env());
  return { url, client: new OpenAI({ baseURL: url, apiKey: "unused", maxRetries: 0 }) };
}

async function worker(c: Cluster) {
  return startWorker(c.shared, c.mock.env());
}

/** The events of an SSE body, to its end. */
async function eventsOf(
  response: Response,
): Promise<Array<{ type: string; sequence_number: number } & Record<string, unknown>>> {
  const text = await response.text();
  return text
    .split("\n\n")
    .flatMap((frame) => frame.split("\n").filter((line) => line.startsWith("data: ")))
    .map((line) => line.slice("data: ".length))
    .filter((data) => data !== "[DONE]")
    .map((data) => JSON.parse(data));
}

const TERMINAL = new Set(["response.completed", "response.failed", "response.incomplete"]);

/** Numbered 0, 1, 2 … without a gap or a repeat, and exactly one terminal event, last. */
function expectWholeStream(events: Array<{ type: string; sequence_number: number }>): void {
  expect(events.map((event) => event.sequence_number)).toEqual(events.map((_, index) => index));
  expect(events.filter((event) => TERMINAL.has(event.type))).toHaveLength(1);
  expect(TERMINAL.has(events.at(-1)?.type ?? "")).toBe(true);
}

describe("gyre serve --queue with gyre worker", () => {
  it("runs responses on a worker: streamed, whole and in the background, followed through another instance", async () => {
    const c = await cluster((workspace) => [
      mockTurn.toolUse("Read", { file_path: join(workspace, "notes.txt") }, { id: "toolu_read" }),
      mockTurn.text("They say Friday."),
    ]);
    const a = await front(c);
    const b = await front(c);
    await worker(c);

    // Streamed, through instance A.
    const streamed = await fetch(`${a.url}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, input: "What do the notes say?", stream: true }),
    });
    const events = await eventsOf(streamed);
    expectWholeStream(events);
    const final = events.at(-1)!.response as { id: string; status: string; output: Array<{ type: string }> };
    expect(final.status).toBe("completed");
    expect(final.output.map((item) => item.type)).toEqual(["function_call", "function_call_output", "message"]);
    expect(JSON.stringify(final.output[1])).toContain(NOTES);

    // Whole, through instance B, with the official client.
    const whole = await b.client.responses.create({ model: MODEL, input: "And again?" });
    expect(whole.status).toBe("completed");
    expect(whole.output_text).toBe("They say Friday.");
    // Stored: any instance reads it.
    expect((await a.client.responses.retrieve(whole.id)).status).toBe("completed");

    // In the background through A, followed through B from its first event to its end.
    const queued = await a.client.responses.create({ model: MODEL, input: "Once more.", background: true });
    expect(queued.status).toBe("queued");
    const followed = await eventsOf(await fetch(`${b.url}/responses/${queued.id}?stream=true`));
    expectWholeStream(followed);
    expect(followed.at(-1)?.type).toBe("response.completed");
    expect((await b.client.responses.retrieve(queued.id)).output_text).toBe("They say Friday.");
    // The queue's depth is in each instance's metrics: nothing waits (the last job may still be
    // finishing on the worker as its stream ends, so active is 0 or 1).
    const metrics = await (await fetch(`${a.url.replace(/\/v1$/, "")}/metrics`)).text();
    expect(metrics).toContain('gyre_queue_depth{state="waiting"} 0');
    expect(metrics).toMatch(/gyre_queue_depth\{state="active"\} [01]\n/);
    // A late reader on A replays the same events, from where it asks.
    const late = await eventsOf(await fetch(`${a.url}/responses/${queued.id}?stream=true&starting_after=2`));
    expect(late).toEqual(followed.slice(3));
  });

  it("cancels through another instance a response running on a worker, and one no worker took yet", async () => {
    const c = await cluster(() => [mockTurn.text("Never sent.", { delayMs: 600_000 })]);
    const a = await front(c);
    const b = await front(c);

    // Queued, with no worker yet: B takes it off the queue.
    const waiting = await a.client.responses.create({ model: MODEL, input: "Wait.", background: true });
    const cancelledWaiting = await b.client.responses.cancel(waiting.id);
    expect(cancelledWaiting.status).toBe("cancelled");

    await worker(c);
    const running = await a.client.responses.create({ model: MODEL, input: "Hold on.", background: true });
    await until(() => c.mock.requests.length === 1, "the worker's model request");
    const cancelled = await b.client.responses.cancel(running.id);
    expect(cancelled.status).toBe("cancelled");
    expect((await a.client.responses.retrieve(running.id)).status).toBe("cancelled");
    // The cancelled waiting one never ran: the only model request is the running one's.
    expect(c.mock.requests).toHaveLength(1);
  });

  it("takes over a run whose worker was killed: no committed turn requested again, the cut item closed, one end", async () => {
    const c = await cluster((workspace) => [
      mockTurn.toolUse("Glob", { pattern: "*.txt" }, { id: "toolu_glob" }),
      mockTurn.toolUse("Read", { file_path: join(workspace, "notes.txt") }, { id: "toolu_read" }),
      // The first worker gets a few events of this answer, then silence; it is killed meanwhile.
      { ...mockTurn.text("Friday, the notes say."), faults: [mockFault.stall(3)] },
    ]);
    const a = await front(c);
    const b = await front(c);
    const first = await worker(c);
    const queued = await a.client.responses.create({ model: MODEL, input: "Read the notes.", background: true });
    // Followed through B while it runs, across the takeover.
    const following = fetch(`${b.url}/responses/${queued.id}?stream=true`).then(eventsOf);
    // Killed once the answer's text has begun on the stream (the stalled answer's first events).
    await until(() => streamHas(c.prefix, queued.id, "response.content_part.added"), "the answer's first text");
    first.child.kill("SIGKILL");
    await exitOf(first.child);
    await worker(c);

    const events = await following;
    expectWholeStream(events);
    const done = events.at(-1)!.response as { status: string; output: Array<{ type: string; status?: string }> };
    expect(done.status).toBe("completed");
    // The text the lost worker had begun is closed incomplete on the stream, and is not in the response.
    const cut = events.filter(
      (event) =>
        event.type === "response.output_item.done" && (event.item as { status?: string }).status === "incomplete",
    );
    expect(cut).toHaveLength(1);
    expect(done.output.map((item) => item.type)).toEqual([
      "function_call",
      "function_call_output",
      "function_call",
      "function_call_output",
      "message",
    ]);
    expect(done.output.every((item) => item.status !== "incomplete")).toBe(true);
    expect((await a.client.responses.retrieve(queued.id)).output_text).toBe("Friday, the notes say.");
    // Turns 1 and 2 were committed: requested once each; only the cut third was requested again, with the same history.
    expect(c.mock.requests).toHaveLength(4);
    expect(c.mock.requests[3]?.body).toEqual(c.mock.requests[2]?.body);
  });

  // The worker stores the response once its run has ended. Holding the response's row keeps it
  // from that with the run's result committed to its session; the worker is killed there. Its
  // save then never reaches the database (its connection ends with it), or lands after all (the
  // database ran it once the row was free): either way the response ends once, whole.
  it.each(["lost", "landed"] as const)(
    "ends a response whose worker died after its run ended, its save %s: that run's answer, nothing requested again",
    async (save) => {
      const answer = "Done before the worker was lost.";
      // The answer waits a second: time to hold the response's row once the run has started.
      const c = await cluster(() => [mockTurn.text(answer, { delayMs: 1_000 })]);
      const a = await front(c);
      const first = await worker(c);
      const queued = await a.client.responses.create({ model: MODEL, input: "Say it.", background: true });
      // Followed while it runs, across the takeover.
      const following = fetch(`${a.url}/responses/${queued.id}?stream=true`).then(eventsOf);
      await until(() => c.mock.requests.length === 1, "the run's model request");
      const db = async () => {
        const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
        await client.connect();
        cleanups.push(() => client.end());
        return client;
      };
      const holder = await db();
      const reader = await db();
      await holder.query("BEGIN");
      await holder.query(`SELECT id FROM "${c.schema}".responses WHERE id = $1 FOR UPDATE`, [queued.id]);
      const results = `SELECT 1 FROM "${c.schema}".session_messages WHERE session_id = $1 AND type = 'result'`;
      await until(
        async () => (await reader.query(results, [`${queued.id}-run`])).rowCount === 1,
        "the run's result in its session",
      );
      // Its save of the response waits for the row.
      const waiting = `SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE "${c.schema}".responses%'`;
      const [saving] = await until(async () => {
        const { rows } = await reader.query<{ pid: number }>(waiting);
        return rows.length > 0 ? rows : undefined;
      }, "the worker's save of the response");
      first.child.kill("SIGKILL");
      await exitOf(first.child);
      if (save === "lost") await reader.query("SELECT pg_terminate_backend($1)", [saving!.pid]);
      await holder.query("ROLLBACK");
      await worker(c);

      const events = await following;
      expectWholeStream(events);
      expect(events.at(-1)?.type).toBe("response.completed");
      const done = await a.client.responses.retrieve(queued.id);
      expect({ status: done.status, error: done.error }).toEqual({ status: "completed", error: null });
      expect(done.output_text).toBe(answer);
      expect(c.mock.requests).toHaveLength(1);
    },
  );
});
