import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { createServer, type Server, type Socket, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { type MockLLMServer, mockFault, type MockTurn, mockTurn, startMockLLM } from "../src/testing/index.js";
import { REDIS_URL, startWorker, testQueue } from "./cluster-process.js";
import { exitOf, killAll, requireBuiltCli, serveUntilExit, startServe } from "./serve-process.js";
import { spawnSync } from "node:child_process";
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

/** A TCP relay on loopback to `port`, which the test can cut (every connection dropped, nothing listening) and restore. */
async function relay(port: number): Promise<{ port: number; cut: () => Promise<void>; restore: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let listenPort = 0;
  const listen = async () => {
    server = createServer((client) => {
      const upstream = connect(port, "127.0.0.1");
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        socket.on("error", () => socket.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((listening) => server!.listen(listenPort, "127.0.0.1", listening));
    listenPort = (server!.address() as { port: number }).port;
  };
  await listen();
  const cut = async () => {
    await new Promise<void>((closed) => {
      server!.close(() => closed());
      for (const socket of sockets) socket.destroy();
    });
  };
  cleanups.push(cut);
  return { port: listenPort, cut, restore: listen };
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

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string): Promise<T> {
  for (let attempt = 0; attempt < 800; attempt++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function statusOf(url: string, id: string): Promise<string> {
  return ((await (await fetch(`${url}/responses/${id}`)).json()) as { status: string }).status;
}

describe("the cluster's faults", () => {
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

    await redis.cut();
    const refused = await until(async () => {
      const answer = await post(serve, {});
      return answer.status === 503 ? answer : undefined;
    }, "a 503");
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("cannot be reached");

    await redis.restore();
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
    await postgres.cut();
    const refused = await until(async () => {
      const answer = await post(serve, { background: true });
      return answer.status >= 500 ? answer : undefined;
    }, "an error");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
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
