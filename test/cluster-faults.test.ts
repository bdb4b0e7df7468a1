import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server, type Socket, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { ResponseQueue } from "../src/server/queue/index.js";
import { openPostgresSessionStore } from "../src/sessions/index.js";
import { type MockLLMServer, mockFault, type MockTurn, mockTurn, startMockLLM } from "../src/testing/index.js";
import { REDIS_URL, startWorker, testQueue, until } from "./cluster-process.js";
import { exitOf, killAll, requireBuiltCli, serveUntilExit, startServe, track } from "./serve-process.js";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { CLI } from "./serve-process.js";
import { cliEnv } from "./helpers.js";
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from "./sessions-postgres-helper.js";

// The cluster's faults, with the real processes, Redis and PostgreSQL: either unreachable at
// start stops the process with where; Redis or PostgreSQL lost while serving is a 503 with
// Retry-After until they are back; SIGTERM lets running responses end within the grace and
// hands the rest back; a cluster stopped whole and started again finishes what it was running.

const cleanups: Array<() => Promise<void> | void> = [];
beforeAll(requireBuiltCli);
afterEach(async () => {
  killAll();
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const MODEL = "anthropic/claude-sonnet-4-5";

/**
 * A TCP relay on loopback to `port`, which the test can cut (every connection dropped, and each
 * new one dropped as it comes: `refused` counts them) and restore.
 */
async function relay(
  port: number,
): Promise<{ port: number; cut: () => void; restore: () => void; refused: () => number }> {
  const sockets = new Set<Socket>();
  let down = false;
  let refused = 0;
  const server: Server = createServer((client) => {
    if (down) {
      refused++;
      return void client.destroy();
    }
    const upstream = connect(port, "127.0.0.1");
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on("close", () => sockets.delete(socket));
      socket.on("error", () => socket.destroy());
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((listening) => server.listen(0, "127.0.0.1", listening));
  cleanups.push(() => {
    for (const socket of sockets) socket.destroy();
    return new Promise<void>((closed) => server.close(() => closed()));
  });
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      down = true;
      for (const socket of sockets) socket.destroy();
    },
    restore: () => {
      down = false;
    },
    refused: () => refused,
  };
}

async function setUp(turns: MockTurn[], storeUrl?: string): Promise<{ mock: MockLLMServer; shared: string[] }> {
  const workspace = realpathSync(mkdtempSync(join(tmpdir(), "gyre-cluster-faults-")));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const queue = testQueue();
  cleanups.push(queue.clean);
  const mock = await startMockLLM({ script: { turns } });
  cleanups.push(() => mock.close());
  let store = storeUrl;
  if (!store) {
    const schema = testSchemaName();
    cleanups.push(() => dropSchema(schema));
    store = `${TEST_DATABASE_URL}?schema=${schema}`;
  }
  return { mock, shared: ["--store", store, "--queue", queue.url] };
}

async function post(url: string, body: object): Promise<Response> {
  return fetch(`${url}/responses`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ model: MODEL, input: "Hi.", ...body }),
  });
}

async function statusOf(url: string, id: string): Promise<string> {
  return ((await (await fetch(`${url}/responses/${id}`)).json()) as { status: string }).status;
}

const DIST_SERVER = resolve(import.meta.dirname, "../dist/server/index.js");
const DIST_SESSIONS = resolve(import.meta.dirname, "../dist/sessions/index.js");

/**
 * A worker of `createWorker` in a process of its own, with a short lease and `maxStarts` 1 (a
 * response may start once): what an operator's program would run. Resolves once it works.
 */
async function libraryWorker(queueUrl: string, store: string, env: Record<string, string>): Promise<ChildProcess> {
  const { url, schema } = (() => {
    const parsed = new URL(store);
    const name = parsed.searchParams.get("schema") ?? undefined;
    parsed.searchParams.delete("schema");
    return { url: parsed.toString(), schema: name };
  })();
  const script = `
    const { createWorker } = await import(${JSON.stringify(DIST_SERVER)});
    const { openPostgresSessionStore } = await import(${JSON.stringify(DIST_SESSIONS)});
    const sessionStore = await openPostgresSessionStore({ connectionString: ${JSON.stringify(url)}, schema: ${JSON.stringify(schema)} });
    const prefix = new URL(${JSON.stringify(queueUrl)}).searchParams.get("prefix");
    await createWorker({ sessionStore, queue: { url: ${JSON.stringify(queueUrl)}, prefix, maxStarts: 1, lockDurationMs: 1000, stalledIntervalMs: 500 } });
    process.stdout.write("working\\n");
  `;
  const child = track(
    spawn(process.execPath, ["--input-type=module", "-e", script], {
      env: cliEnv(env),
      stdio: ["ignore", "pipe", "inherit"],
    }),
  );
  await new Promise<void>((ready, failed) => {
    child.stdout!.on("data", (chunk: Buffer) => chunk.toString().includes("working") && ready());
    child.once("exit", (code) => failed(new Error(`the worker exited (${code})`)));
  });
  return child;
}

describe("the cluster's faults", () => {
  it("ends what it cannot run with why: a job that does not parse, a response no longer stored, a model the worker lacks", async () => {
    const { mock, shared } = await setUp([mockTurn.text("Hello.")]);
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), "gyre-cluster-models-")));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    // The instance serves "fast"; the worker was started without the config that names it.
    const config = join(workspace, "serve.yaml");
    writeFileSync(config, "models:\n  - { name: fast, model: anthropic/claude-sonnet-4-5 }\n");
    const { url: serve } = await startServe(
      [...shared, "--config", config, "--concurrency", "0", "--quiet"],
      mock.env(),
    );
    await startWorker(shared, mock.env());
    const queued = (await (await post(serve, { model: "fast", background: true })).json()) as { id: string };
    await until(async () => (await statusOf(serve, queued.id)) === "failed" || undefined, "the response failed");
    const failed = (await (await fetch(`${serve}/responses/${queued.id}`)).json()) as { error: { code: string } };
    expect(failed.error.code).toBe("model_not_found");
    expect(mock.requests).toHaveLength(0);

    // Jobs put on the queue by something else: its stream is ended with an error, the job is not left stuck.
    const queueUrl = shared[shared.indexOf("--queue") + 1]!;
    const queue = await ResponseQueue.connect({ url: queueUrl });
    cleanups.push(async () => void (await queue.close()));
    await queue.enqueue("resp_garbage", { owner: 7 });
    await queue.enqueue("resp_gone", {
      owner: "local",
      request: { model: MODEL, input: "Hi." },
      inputItems: [],
      createdAt: 0,
    });
    for (const [id, message] of [
      ["resp_garbage", "The queued job does not parse"],
      ["resp_gone", "is no longer stored"],
    ] as const) {
      const { events } = await until(async () => {
        const read = await queue.events.read(id);
        return read.ended ? read : undefined;
      }, `${id}'s stream ended`);
      expect(events.map((event) => event.type)).toEqual(["error"]);
      expect(JSON.stringify(events[0])).toContain(message);
    }
    expect(await queue.depth()).toEqual({ waiting: 0, active: 0 });
  });

  it("fails a response whose workers keep dying with it, saying so, instead of starting it again and again", async () => {
    const { mock, shared } = await setUp([
      { ...mockTurn.text("Never."), faults: [mockFault.stall(1), mockFault.stall(1)] },
    ]);
    const queueUrl = shared[shared.indexOf("--queue") + 1]!;
    const store = shared[shared.indexOf("--store") + 1]!;
    const { url: serve } = await startServe([...shared, "--concurrency", "0", "--quiet"], mock.env());
    const first = await libraryWorker(queueUrl, store, mock.env());
    const queued = (await (await post(serve, { background: true })).json()) as { id: string };
    const following = fetch(`${serve}/responses/${queued.id}?stream=true`).then((answer) => answer.text());
    await until(() => mock.requests.length === 1 || undefined, "the model request");
    first.kill("SIGKILL");
    await exitOf(first);
    await libraryWorker(queueUrl, store, mock.env());
    await until(async () => (await statusOf(serve, queued.id)) === "failed" || undefined, "the response failed");
    const stored = (await (await fetch(`${serve}/responses/${queued.id}`)).json()) as { error: { message: string } };
    expect(stored.error.message).toMatch(/given up/);
    // Started once only: the model was asked once.
    expect(mock.requests).toHaveLength(1);
    // Its followers were told: the stream ended with the failure.
    expect(await following).toContain("event: response.failed");
  });

  it("holds a handful of Redis connections however many background responses wait", async () => {
    const { mock, shared } = await setUp([mockTurn.text("Later.")]);
    const { url: serve } = await startServe([...shared, "--concurrency", "0", "--quiet"], mock.env());
    const redis = new Redis(REDIS_URL);
    cleanups.push(() => void redis.disconnect());
    const clients = async () =>
      String(await redis.client("LIST"))
        .split("\n")
        .filter((line) => line.includes("name=gyre-queue")).length;
    const before = await clients();
    // No worker runs them: each waits on the queue, and the instance waits for each to end.
    for (let index = 0; index < 30; index++) expect((await post(serve, { background: true })).status).toBe(200);
    expect((await clients()) - before).toBeLessThanOrEqual(2);
  });

  it("stops gyre serve and gyre worker with exit code 1 naming the Redis they cannot reach", async () => {
    const unreachable = "redis://127.0.0.1:1/0";
    const served = await serveUntilExit(["--queue", unreachable]);
    expect(served.code).toBe(1);
    expect(served.output).toContain(`Redis at ${unreachable} cannot be reached`);
    const worker = spawnSync(process.execPath, [CLI, "worker", "--queue", unreachable], {
      env: cliEnv(),
      encoding: "utf8",
    });
    expect(worker.status).toBe(1);
    expect(worker.stderr).toContain(`Redis at ${unreachable} cannot be reached`);
    const noQueue = spawnSync(process.execPath, [CLI, "worker"], {
      env: cliEnv({ GYRE_QUEUE_URL: "" }),
      encoding: "utf8",
    });
    expect(noQueue.status).toBe(1);
    expect(noQueue.stderr).toContain("--queue");
  });

  it("answers 503 with Retry-After while Redis is lost, and runs responses again once it is back", async () => {
    const redis = await relay(6379);
    const queue = testQueue();
    cleanups.push(queue.clean);
    const { mock, shared } = await setUp([mockTurn.text("Hello.")]);
    const url = `redis://127.0.0.1:${redis.port}/0?prefix=${queue.prefix}`;
    const flags = shared.map((flag) => (flag.startsWith(REDIS_URL) ? url : flag));
    const { url: serve } = await startServe([...flags, "--quiet"], mock.env());
    expect((await post(serve, {})).status).toBe(200);

    redis.cut();
    const refused = await until(async () => {
      const answer = await post(serve, {});
      return answer.status === 503 ? answer : undefined;
    }, "a 503");
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("cannot be reached");

    redis.restore();
    const again = await until(async () => {
      const answer = await post(serve, {});
      return answer.status === 200 ? answer : undefined;
    }, "a response once Redis is back");
    expect(((await again.json()) as { status: string }).status).toBe("completed");
  });

  it("answers 503 with Retry-After while PostgreSQL is lost", async () => {
    const postgres = await relay(5432);
    const schema = testSchemaName();
    cleanups.push(() => dropSchema(schema));
    const store = `postgres://postgres@127.0.0.1:${postgres.port}/test?schema=${schema}`;
    const { mock, shared } = await setUp([mockTurn.text("Hello.")], store);
    const { url: serve } = await startServe([...shared, "--quiet"], mock.env());
    expect((await post(serve, {})).status).toBe(200);
    postgres.cut();
    const refused = await until(async () => {
      const answer = await post(serve, { background: true });
      return answer.status >= 500 ? answer : undefined;
    }, "an error");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
  });

  it("pauses a run at its next step while PostgreSQL is lost, and goes on when it is back", async () => {
    const postgres = await relay(5432);
    const schema = testSchemaName();
    cleanups.push(() => dropSchema(schema));
    const store = `postgres://postgres@127.0.0.1:${postgres.port}/test?schema=${schema}`;
    // The answer comes while the store is away: its commit has to wait.
    const { mock, shared } = await setUp([mockTurn.text("Still here.", { delayMs: 300 })], store);
    const { url: serve } = await startServe([...shared, "--concurrency", "1", "--quiet"], mock.env());
    const queued = (await (await post(serve, { background: true })).json()) as { id: string };
    await until(() => mock.requests.length === 1 || undefined, "the model request");
    postgres.cut();
    // The run tried to reach the store a few times while it was away, then it is back.
    await until(() => postgres.refused() >= 3 || undefined, "attempts to reach the store");
    postgres.restore();
    await until(async () => (await statusOf(serve, queued.id)) === "completed" || undefined, "the response completed");
    const stored = openPostgresSessionStore({ connectionString: TEST_DATABASE_URL, schema });
    const opened = await stored;
    cleanups.push(() => opened.close());
    const answers = (await opened.getSessionMessages(`${queued.id}-run`)).filter(
      (message) => message.type === "assistant",
    );
    expect(answers).toHaveLength(1);
    expect(mock.requests).toHaveLength(1);
  });

  it("on SIGTERM a worker lets a running response end within the grace, then exits", async () => {
    const { mock, shared } = await setUp([mockTurn.text("one two three four five six", { chunkDelayMs: 150 })]);
    const { url: serve } = await startServe([...shared, "--concurrency", "0", "--quiet"], mock.env());
    const worker = await startWorker([...shared, "--shutdown-grace", "60"], mock.env());
    const queued = (await (await post(serve, { background: true })).json()) as { id: string };
    await until(() => mock.requests.length === 1 || undefined, "the model request");
    worker.child.kill("SIGTERM");
    expect(await exitOf(worker.child)).toBe(0);
    expect(await statusOf(serve, queued.id)).toBe("completed");
  });

  it("hands a run back on SIGTERM past the grace; the cluster stopped whole and started again finishes it", async () => {
    const { mock, shared } = await setUp([{ ...mockTurn.text("Back again."), faults: [mockFault.stall(2)] }]);
    const first = await startServe([...shared, "--concurrency", "0", "--quiet"], mock.env());
    const worker = await startWorker([...shared, "--shutdown-grace", "0"], mock.env());
    const queued = (await (await post(first.url, { background: true })).json()) as { id: string };
    await until(() => mock.requests.length === 1 || undefined, "the model request");
    worker.child.kill("SIGTERM");
    expect(await exitOf(worker.child)).toBe(0);
    first.child.kill("SIGKILL");
    await exitOf(first.child);
    // Nothing of the cluster runs now. Started again, it takes the run over.
    const { url: serve } = await startServe([...shared, "--concurrency", "0", "--quiet"], mock.env());
    await startWorker(shared, mock.env());
    await until(async () => (await statusOf(serve, queued.id)) === "completed" || undefined, "the response completed");
    expect(mock.requests).toHaveLength(2);
  });
});
