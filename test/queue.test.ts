import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { resolve } from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { isGyreError } from "../src/index.js";
import { ResponseQueue, type RunJob } from "../src/server/queue/index.js";
import type { NumberedEvent } from "../src/server/stream-event.js";

// The cluster's queue on the real Redis (127.0.0.1:6379): jobs, events across instances,
// cancel from anywhere, and a dead worker's run taken over by another. Each test has a key
// prefix of its own, deleted after it.

const URL = "redis://127.0.0.1:6379/0";
const DIST_QUEUE = resolve(import.meta.dirname, "../dist/server/queue/index.js");
const FAST = { lockDurationMs: 1000, stalledIntervalMs: 500 };

const opened: ResponseQueue[] = [];
const prefixes: string[] = [];
const children: ChildProcess[] = [];

async function queue(prefix: string, settings: Partial<Parameters<typeof ResponseQueue.connect>[0]> = {}) {
  const q = await ResponseQueue.connect({ url: URL, prefix, ...FAST, ...settings });
  opened.push(q);
  return q;
}

function newPrefix(): string {
  const prefix = `gyre-test-${randomUUID()}`;
  prefixes.push(prefix);
  return prefix;
}

afterEach(async () => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
  await Promise.all(opened.splice(0).map((q) => q.close()));
});

afterAll(async () => {
  const redis = new Redis(URL);
  for (const prefix of prefixes) {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length > 0) await redis.del(...keys);
  }
  redis.disconnect();
});

/** A worker in a process of its own whose runs never end; it says "started <id> <startsBefore>". */
function workerProcess(prefix: string, settings: object = FAST): { child: ChildProcess; started: Promise<string> } {
  const script = `
    const { ResponseQueue } = await import(${JSON.stringify(DIST_QUEUE)});
    const q = await ResponseQueue.connect({ url: ${JSON.stringify(URL)}, prefix: ${JSON.stringify(prefix)}, ...${JSON.stringify(settings)} });
    await q.work(async ({ responseId, startsBefore }) => {
      process.stdout.write("started " + responseId + " " + startsBefore + "\\n");
      await new Promise(() => {});
    }, 1);
    setInterval(() => {}, 1 << 30);
  `;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const started = new Promise<string>((resolveStarted, reject) => {
    let out = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split("\n").find((l) => l.startsWith("started "));
      if (line) resolveStarted(line);
    });
    child.on("exit", (code) => reject(new Error(`the worker exited (${code}) before starting a run: ${out}`)));
  });
  return { child, started };
}

async function killHard(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolveExit) => child.once("exit", resolveExit));
  child.kill("SIGKILL");
  await exited;
}

describe("ResponseQueue on Redis", () => {
  it("refuses a queue it cannot reach, or a URL that is not Redis's, saying where", async () => {
    const unreachable = await ResponseQueue.connect({ url: "redis://127.0.0.1:1/0" }).catch((error) => error);
    expect(isGyreError(unreachable) && unreachable.code).toBe("queue_unavailable");
    expect(String(unreachable.message)).toContain("redis://127.0.0.1:1/0");
    const wrong = await ResponseQueue.connect({ url: "postgres://127.0.0.1/test" }).catch((error) => error);
    expect(isGyreError(wrong) && wrong.code).toBe("config_error");
  });

  it("runs an enqueued response once, and its events reach a reader on another instance, to the end", async () => {
    const prefix = newPrefix();
    const [serving, working] = [await queue(prefix), await queue(prefix)];
    const ran: string[] = [];
    const run: RunJob = async ({ responseId }) => {
      ran.push(responseId);
      for (const [index, type] of ["response.created", "response.completed"].entries())
        await working.events.append(responseId, { type, sequence_number: index });
      await working.events.end(responseId);
    };
    const followed: Array<NumberedEvent | undefined> = [];
    const ended = new Promise<void>((resolveEnd) =>
      serving.events.follow("resp_1", -1, (event) => {
        followed.push(event);
        if (event === undefined) resolveEnd();
      }),
    );
    await serving.enqueue("resp_1");
    await serving.enqueue("resp_1");
    await working.work(run, 2);
    await ended;
    expect(ran).toEqual(["resp_1"]);
    expect(followed.map((event) => event?.type)).toEqual(["response.created", "response.completed", undefined]);
    // A late reader replays from where it asks.
    const late: Array<string | undefined> = [];
    await new Promise<void>((resolveEnd) =>
      serving.events.follow("resp_1", 0, (event) => {
        late.push(event?.type);
        if (event === undefined) resolveEnd();
      }),
    );
    expect(late).toEqual(["response.completed", undefined]);
  });

  it("cancels a run from another instance", async () => {
    const prefix = newPrefix();
    const [serving, working] = [await queue(prefix), await queue(prefix)];
    let started!: () => void;
    const running = new Promise<void>((resolveStarted) => (started = resolveStarted));
    const stopped = new Promise<string>((resolveStopped) =>
      working.work(async ({ signal }) => {
        started();
        await new Promise<void>((resolveAbort) => signal.addEventListener("abort", () => resolveAbort()));
        resolveStopped(String(signal.reason));
      }, 1),
    );
    await serving.enqueue("resp_cancel");
    await running;
    await serving.cancel("resp_cancel");
    expect(await stopped).toContain("cancelled");
  });

  it("takes over the run of a worker killed with kill -9", async () => {
    const prefix = newPrefix();
    const serving = await queue(prefix);
    const first = workerProcess(prefix);
    await serving.enqueue("resp_takeover");
    expect(await first.started).toBe("started resp_takeover 0");
    await killHard(first.child);
    // The lock of the dead worker lapses, and the run starts again here, knowing it was started before.
    const taken = new Promise<number>(
      (resolveTaken) =>
        void queue(prefix).then((q) => q.work(async ({ startsBefore }) => resolveTaken(startsBefore), 1)),
    );
    expect(await taken).toBe(1);
  });

  it("fails a run that keeps killing its workers instead of starting it again", async () => {
    const prefix = newPrefix();
    const settings = { ...FAST, maxStarts: 2 };
    const serving = await queue(prefix, settings);
    await serving.enqueue("resp_poison");
    for (const starts of [0, 1]) {
      const worker = workerProcess(prefix, settings);
      expect(await worker.started).toBe(`started resp_poison ${starts}`);
      await killHard(worker.child);
    }
    const ran: string[] = [];
    await (await queue(prefix, settings)).work(async ({ responseId }) => void ran.push(responseId), 1);
    const jobs = new Queue("responses", { connection: { url: URL }, prefix });
    try {
      await waitFor(async () => (await (await jobs.getJob("resp_poison"))?.getState()) === "failed");
      expect((await jobs.getJob("resp_poison"))?.failedReason).toMatch(/started 2 times|stalled/);
      expect(ran).toEqual([]);
    } finally {
      await jobs.close();
    }
  });
});

async function waitFor(done: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
  }
}
