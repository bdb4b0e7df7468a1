// `gyre serve --queue` and `gyre worker` (the cluster: BullMQ on Redis, a PostgreSQL store every
// process shares) against in-process `gyre serve` on the same PostgreSQL, in the same run. Every
// process is the real CLI; the upstream is `gyre mock-llm` (zero latency unless said); the load
// comes from this one. Needs Redis at 127.0.0.1:6379 and PostgreSQL at 127.0.0.1:5432 (database
// `test`, as the tests), or GYRE_BENCH_REDIS_URL / GYRE_BENCH_DATABASE_URL; it makes a schema and a
// Redis key prefix of its own and removes them at the end.
// 1. What the queue adds to a response's first byte: streamed responses one after another,
//    alternately through in-process `gyre serve` and through `gyre serve --queue --concurrency 0`
//    with one `gyre worker`: time to first byte (and to the end) p50/p99, and the difference.
//    Target: under 5 ms added at p50.
// 2. Takeover after kill -9: a background response whose model answer stalls after its first
//    event (the mock holds it), its worker killed while a second worker runs: the time from the
//    kill to the resumed run's model request reaching the mock, split into what was left of the
//    dead worker's lease (read from Redis at the kill) and what came after it lapsed.
//    Target: under 5 s with the default settings.
// 3. Throughput: a batch of non-streamed two-turn responses (a Glob call, then the answer) with a
//    bounded number in flight, through in-process `gyre serve` and through two `--concurrency 0`
//    instances with 1, 2 and 4 worker processes: responses per second, and CPU per response of
//    each kind of process (the machine's cores are shared by all of them, Redis and PostgreSQL).
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import pg from "pg";
import { QUEUE_TIMING } from "../dist/server/queue/response-queue.js";

const TTFB_WARMUP = 30;
const TTFB_COUNT = 200;
const TAKEOVERS = 5;
const BATCH = 300;
const BATCH_WARMUP = 40;
const IN_FLIGHT = 64;
const WORKER_CONCURRENCY = 50;
const WORKER_COUNTS = [1, 2, 4];
// The queue's defaults, which the processes run with.
const { lockDurationMs: LOCK_DURATION_MS, stalledIntervalMs: STALLED_INTERVAL_MS } = QUEUE_TIMING;
const MODEL = "openai/gpt-5";
// Which of the three parts to run (all by default), e.g. GYRE_BENCH_CLUSTER_PARTS=2,3.
const PARTS = new Set((process.env.GYRE_BENCH_CLUSTER_PARTS ?? "1,2,3").split(",").map(Number));

const gyre = resolve("dist/bin/gyre.js");
const redisBase = process.env.GYRE_BENCH_REDIS_URL ?? "redis://127.0.0.1:6379/0";
const databaseUrl = process.env.GYRE_BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const tag = randomBytes(6).toString("hex");
const schemas = [`gyre_bench_${tag}_inproc`, `gyre_bench_${tag}_cluster`];
const prefix = `gyre-bench-${tag}`;
const queueUrl = `${redisBase}?prefix=${prefix}`;
const storeOf = (schema) => `${databaseUrl}?schema=${schema}`;
const scratch = realpathSync(mkdtempSync(join(tmpdir(), "gyre-bench-cluster-")));
const children = new Set();
/** Processes the bench stops itself (a killed worker, everything at the end). */
const stopping = new Set();

/** Starts `gyre ARGS` and resolves once it prints a line matching `ready` (with the match). */
function start(args, env, ready) {
  const child = spawn(process.execPath, [gyre, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.add(child);
  child.once("exit", (code, signal) => {
    children.delete(child);
    // Another process on the machine stopping one of these would leave the bench waiting.
    if (!stopping.has(child))
      abort(`gyre ${args[0]} (pid ${child.pid}) exited (${code ?? signal}) in the middle of the bench`);
  });
  return new Promise((done, fail) => {
    const lines = createInterface({ input: child.stdout });
    lines.on("line", (line) => {
      const match = ready.exec(line);
      if (match) done({ child, match });
    });
    child.once("exit", (code, signal) =>
      fail(new Error(`gyre ${args[0]} exited (${code ?? signal}) before it was ready`)),
    );
  });
}

function exited(child) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((done) => child.once("exit", done));
}

const listening = /listening on (http:\/\/\S+)/;

async function serve(args, env) {
  const { child, match } = await start(["serve", "--port", "0", "--quiet", ...args], env, listening);
  return { child, url: match[1].replace(/\/v1$/, "") };
}

async function worker(shared, env) {
  const { child } = await start(
    ["worker", ...shared, "--concurrency", String(WORKER_CONCURRENCY)],
    env,
    /^gyre worker running/,
  );
  return child;
}

async function control(mockUrl, path, body) {
  const response = await fetch(`${mockUrl}${path}`, { method: "POST", body: JSON.stringify(body ?? {}) });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

async function mockRequests(mockUrl) {
  return (await fetch(`${mockUrl}/_mock/requests`)).json();
}

/**
 * One POST /v1/responses: its status, body, time to the first byte of the body and to its end
 * (and, on the wall clock Redis' timestamps share, when it was sent and its first byte came).
 */
function post(base, agent, payload) {
  const target = new URL(`${base}/v1/responses`);
  return new Promise((done) => {
    const sentAt = Date.now();
    const started = performance.now();
    let firstByteMs;
    let firstByteAt;
    let text = "";
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent },
      (res) => {
        res.setEncoding("utf8");
        res.on("data", (chunk) => {
          if (firstByteMs === undefined) {
            firstByteMs = performance.now() - started;
            firstByteAt = Date.now();
          }
          text += chunk;
        });
        res.on("end", () =>
          done({
            status: res.statusCode,
            text,
            firstByteMs,
            totalMs: performance.now() - started,
            sentAt,
            firstByteAt,
          }),
        );
        res.on("error", (error) => done({ status: 0, text: error.message }));
      },
    );
    req.on("error", (error) => done({ status: 0, text: error.message }));
    req.setHeader("content-type", "application/json");
    req.end(JSON.stringify(payload));
  });
}

/**
 * `count` responses through `bases` in turn, at most `inFlight` at once: each one's time to its
 * answer, and why those that did not complete did not.
 */
async function batch(bases, count, inFlight) {
  const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
  let next = 0;
  const latencies = [];
  const failures = [];
  const ids = [];
  const lane = async () => {
    while (next < count) {
      const index = next++;
      const result = await post(bases[index % bases.length], agent, {
        model: MODEL,
        input: `Find the notes (${index}).`,
      });
      let status;
      try {
        const body = JSON.parse(result.text);
        status = body.status;
        ids.push(body.id);
      } catch {
        status = undefined;
      }
      if (result.status === 200 && status === "completed") latencies.push(result.totalMs);
      else failures.push(`HTTP ${result.status}: ${result.text.slice(0, 300)}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, lane));
  agent.destroy();
  return { latencies, failures, ids };
}

/** When the queue found a job stalled (its worker's lease lapsed) and put it back: from BullMQ's event stream. */
async function stalledAt(redis, jobId) {
  const entries = await redis.xrevrange(`${prefix}:responses:events`, "+", "-", "COUNT", 1000);
  const entry = entries.find(([, fields]) => fields[1] === "stalled" && fields[3] === jobId);
  return entry ? Number(entry[0].split("-")[0]) : NaN;
}

/** CPU time Redis used so far, in ms (its own count, INFO cpu: the whole server's, whoever else uses it). */
async function redisCpuMs(redis) {
  const info = await redis.info("cpu");
  const field = (name) => Number(new RegExp(`^${name}:([\\d.]+)`, "m").exec(info)?.[1] ?? NaN);
  return (field("used_cpu_user") + field("used_cpu_sys")) * 1000;
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; NaN elsewhere). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return NaN;
  }
}
const cpuOf = (processes) => processes.reduce((sum, child) => sum + cpuMs(child.pid), 0);

async function until(check, what, timeoutMs = 30_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 10));
  }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values) => percentile(values, 50);
const load = () => loadavg()[0].toFixed(1);
const ms = (x) => `${x.toFixed(1)} ms`;
const s = (x) => `${(x / 1000).toFixed(2)} s`;

let cleaning;
function cleanup() {
  cleaning ??= removeEverything();
  return cleaning;
}

async function removeEverything() {
  const running = [...children];
  for (const child of running) stopping.add(child);
  for (const child of running) child.kill("SIGKILL");
  await Promise.all(running.map(exited));
  const problems = [];
  const client = new pg.Client({ connectionString: databaseUrl });
  try {
    await client.connect();
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } catch (error) {
    problems.push(`PostgreSQL schemas ${schemas.join(", ")}: ${error.message}`);
  } finally {
    await client.end().catch(() => {});
  }
  const redis = new Redis(redisBase, { lazyConnect: true, maxRetriesPerRequest: 1 });
  redis.on("error", () => {});
  try {
    await redis.connect();
    const keys = [];
    for await (const found of redis.scanStream({ match: `${prefix}:*`, count: 1000 })) keys.push(...found);
    for (let index = 0; index < keys.length; index += 1000) await redis.del(...keys.slice(index, index + 1000));
  } catch (error) {
    problems.push(`Redis keys ${prefix}:*: ${error.message}`);
  } finally {
    redis.disconnect();
  }
  rmSync(scratch, { recursive: true, force: true });
  for (const problem of problems) console.error(`cleanup failed: ${problem}`);
}

function abort(why, exitCode = 1) {
  console.error(`${why}: cleaning up`);
  void cleanup().finally(() => process.exit(exitCode));
}

for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => abort(signal, 130));

try {
  writeFileSync(join(scratch, "notes.txt"), "the notes say: ship on Friday\n");
  const config = join(scratch, "serve.yaml");
  writeFileSync(config, `tools: [Read, Glob]\nworkspace: ${scratch}\n`);
  const answer = { turns: [{ content: [{ type: "text", text: "Hello from the mock upstream." }] }] };
  const scriptFile = join(scratch, "script.json");
  writeFileSync(scriptFile, JSON.stringify(answer));
  const { child: mockChild, match } = await start(["mock-llm", "--script", scriptFile], {}, listening);
  const mock = match[1];
  const env = { OPENAI_BASE_URL: `${mock}/v1`, OPENAI_API_KEY: "mock" };

  const shared = ["--config", config, "--store", storeOf(schemas[1]), "--queue", queueUrl];
  const [inProcess, front, second, firstWorker] = await Promise.all([
    serve(["--config", config, "--store", storeOf(schemas[0])], env),
    serve([...shared, "--concurrency", "0"], env),
    serve([...shared, "--concurrency", "0"], env),
    worker(shared, env),
  ]);
  const workers = [firstWorker];
  console.log(
    `PostgreSQL store for both (a schema each), Redis queue; ${availableParallelism()} cores shared by every process, ` +
      `Redis and PostgreSQL (and whatever else runs: load average ${load()} now).`,
  );

  // 1. Time to first byte, one streamed response at a time, alternating between the two.
  if (PARTS.has(1)) {
    const streamed = { model: MODEL, input: "Say hello.", stream: true };
    const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 })];
    const timings = [[], []];
    let failures = 0;
    for (let index = 0; index < TTFB_WARMUP + TTFB_COUNT; index++) {
      for (const [which, base] of [inProcess.url, front.url].entries()) {
        const result = await post(base, agents[which], streamed);
        const ok = result.status === 200 && result.text.includes("response.completed");
        if (!ok) failures++;
        if (index >= TTFB_WARMUP && ok) timings[which].push(result);
      }
    }
    for (const agent of agents) agent.destroy();
    console.log(`${TTFB_COUNT} streamed responses one after another (after ${TTFB_WARMUP} to warm up), alternating:`);
    const firsts = timings.map((results) => results.map((result) => result.firstByteMs));
    const totals = timings.map((results) => results.map((result) => result.totalMs));
    for (const [which, name] of ["in-process gyre serve", "serve --queue + 1 worker"].entries())
      console.log(
        `  ${name.padEnd(26)} first byte p50 ${ms(percentile(firsts[which], 50))} p99 ${ms(percentile(firsts[which], 99))}; ` +
          `whole stream p50 ${ms(percentile(totals[which], 50))} p99 ${ms(percentile(totals[which], 99))}`,
      );
    const added = (p, values) => percentile(values[1], p) - percentile(values[0], p);
    console.log(
      `  the queue adds to the first byte: p50 ${ms(added(50, firsts))} (target < 5 ms: ${added(50, firsts) < 5 ? "met" : "MISSED"}), ` +
        `p99 ${ms(added(99, firsts))}; to the whole stream: p50 ${ms(added(50, totals))}, p99 ${ms(added(99, totals))}; errors ${failures}`,
    );
    // Where the queued path's first byte goes, from the job's timestamps (when it was added, when
    // a worker took it) and the first event's id on the response's Redis stream (ms resolution).
    const redis = new Redis(redisBase);
    redis.on("error", () => {});
    const steps = [];
    try {
      for (const result of timings[1]) {
        const id = /"id":"(resp_[^"]+)"/.exec(result.text)?.[1];
        const job = await redis.hgetall(`${prefix}:responses:${id}`);
        const [first] = await redis.xrange(`${prefix}:events:${id}`, "-", "+", "COUNT", 1);
        const emitted = Number(first?.[0].split("-")[0]);
        steps.push([
          Number(job.timestamp) - result.sentAt,
          Number(job.processedOn) - Number(job.timestamp),
          emitted - Number(job.processedOn),
          result.firstByteAt - emitted,
        ]);
      }
    } finally {
      redis.disconnect();
    }
    const step = (index) =>
      `${percentile(
        steps.map((row) => row[index]),
        50,
      )} ms`;
    console.log(
      `  the queued first byte at p50, step by step: request to job enqueued (the instance stores the response and adds the job) ${step(0)}; ` +
        `to a worker taking it ${step(1)}; to its first event on the Redis stream ${step(2)}; to the client ${step(3)}`,
    );
  }

  // 2. Takeover: the job's only worker gets the stalled answer's first event, a second worker
  // starts, the first is killed; the second resumes the run and asks the model again (attempt 1
  // of the turn, which the mock answers whole). The kills are spread over one lease renewal
  // period, so that they find the lease at different ages.
  if (PARTS.has(2)) {
    await control(mock, "/_mock/script", {
      turns: [{ content: [{ type: "text", text: "Taken over." }], faults: [{ type: "stall", afterChunks: 1 }] }],
    });
    const redis = new Redis(redisBase);
    redis.on("error", () => {});
    const takeovers = [];
    try {
      for (let round = 0; round < TAKEOVERS; round++) {
        await control(mock, "/_mock/reset");
        const created = await fetch(`${front.url}/v1/responses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ model: MODEL, input: "Hold on.", background: true }),
        });
        const { id } = await created.json();
        await until(async () => (await mockRequests(mock)).length === 1, "the first worker's model request");
        const standby = await worker(shared, env);
        await new Promise((done) => setTimeout(done, (round * LOCK_DURATION_MS) / 2 / TAKEOVERS));
        const leaseLeftMs = await redis.pttl(`${prefix}:responses:${id}:lock`);
        const victim = workers.shift();
        stopping.add(victim);
        const killedAt = Date.now();
        victim.kill("SIGKILL");
        workers.push(standby);
        const resumed = await until(async () => (await mockRequests(mock))[1], "the resumed run's model request");
        const requestedAt = Date.parse(resumed.receivedAt);
        await until(
          async () => (await (await fetch(`${front.url}/v1/responses/${id}`)).json()).status === "completed",
          "the taken-over response to complete",
        );
        await exited(victim);
        takeovers.push({
          kill: requestedAt - killedAt,
          lease: leaseLeftMs,
          found: (await stalledAt(redis, id)) - (killedAt + leaseLeftMs),
          resume: requestedAt - (await stalledAt(redis, id)),
        });
      }
    } finally {
      redis.disconnect();
    }
    const part = (name) => takeovers.map((round) => round[name]);
    for (const round of takeovers) round.lapse = round.kill - round.lease;
    const summary = (name) => `median ${s(median(part(name)))}, max ${s(Math.max(...part(name)))}`;
    const worst = LOCK_DURATION_MS + STALLED_INTERVAL_MS + Math.max(...part("resume"));
    console.log(
      `Takeover after kill -9 of the worker running a response, another worker running (${TAKEOVERS} kills spread over ` +
        `a lease renewal; lockDurationMs ${LOCK_DURATION_MS}, stalledIntervalMs ${STALLED_INTERVAL_MS}, the defaults):`,
    );
    console.log(
      `  kill to the resumed run's model request: ${summary("kill")} (target < 5 s: ${Math.max(...part("kill")) < 5000 ? "met" : "MISSED"}); ` +
        `each: ${part("kill").map(s).join(", ")}`,
    );
    console.log(
      `  of which: the dead worker's lease left at the kill ${summary("lease")}; lapse to the stalled check finding it ` +
        `${summary("found")}; found to the model request (back on the queue, taken, resumed) ${summary("resume")}`,
    );
    console.log(
      `  lease lapse to the model request (the issue's measure): ${summary("lapse")}; the worst case from the kill, ` +
        `a lease just renewed and a check just missed, is lockDurationMs + stalledIntervalMs + the resume: ~${s(worst)}` +
        `${worst < 5000 ? "" : " (over 5 s: the lease, kept long enough that a busy worker does not lose live runs, is most of it)"}`,
    );
  }

  // 3. Throughput: two-turn responses, a batch at a time.
  if (PARTS.has(3)) {
    await control(mock, "/_mock/script", {
      turns: [
        { content: [{ type: "tool_use", name: "Glob", input: { pattern: "*.txt" } }] },
        { content: [{ type: "text", text: "The notes are in notes.txt." }] },
      ],
    });
    const fronts = [front, second];
    const redis = new Redis(redisBase);
    redis.on("error", () => {});
    const measure = async (bases, groups, warmUp) => {
      if (warmUp) await batch(bases, BATCH_WARMUP, IN_FLIGHT);
      const processes = [...groups, [mockChild]];
      const cpuBefore = processes.map(cpuOf);
      const redisBefore = await redisCpuMs(redis);
      const started = performance.now();
      const { latencies, failures, ids } = await batch(bases, BATCH, IN_FLIGHT);
      const elapsed = performance.now() - started;
      const cpu = processes.map((group, index) => (cpuOf(group) - cpuBefore[index]) / BATCH);
      const redisCpu = ((await redisCpuMs(redis)) - redisBefore) / BATCH;
      for (const failure of new Set(failures)) console.log(`  not completed: ${failure}`);
      // How long each job waited on the queue for a worker (its timestamps; none for in-process runs).
      const jobs = await Promise.all(
        ids.map((id) => redis.hmget(`${prefix}:responses:${id}`, "timestamp", "processedOn")),
      );
      const waits = jobs.filter(([added]) => added !== null).map(([added, taken]) => Number(taken) - Number(added));
      return { perSecond: (BATCH / elapsed) * 1000, latencies, failures, cpu, redisCpu, waits };
    };
    console.log(
      `${BATCH} non-streamed responses of two turns each (a Glob call, then the answer), ${IN_FLIGHT} in flight, ` +
        `each configuration warmed up with ${BATCH_WARMUP}; workers run ${WORKER_CONCURRENCY} each. In-process gyre serve ` +
        `before and after each cluster line (the machine's load drifts); CPU per response in ms:`,
    );
    const line = (name, result, cpu) =>
      console.log(
        `  ${name.padEnd(36)} ${result.perSecond.toFixed(1).padStart(6)} responses/s, each p50 ${ms(percentile(result.latencies, 50))} ` +
          `p99 ${ms(percentile(result.latencies, 99))}` +
          (result.waits.length > 0
            ? ` (waiting for a worker p50 ${ms(percentile(result.waits, 50))} p99 ${ms(percentile(result.waits, 99))})`
            : "") +
          `, not completed ${result.failures.length}; ` +
          `CPU ${cpu}, the mock ${result.cpu.at(-1).toFixed(1)}, Redis ${result.redisCpu.toFixed(1)}; load average ${load()}`,
      );
    const inProcessBatch = async (warmUp) => {
      const result = await measure([inProcess.url], [[inProcess.child]], warmUp);
      line("in-process gyre serve", result, `serve ${result.cpu[0].toFixed(1)}`);
      return result;
    };
    try {
      let before = await inProcessBatch(true);
      for (const count of WORKER_COUNTS) {
        while (workers.length < count) workers.push(await worker(shared, env));
        const result = await measure(
          fronts.map((instance) => instance.url),
          [fronts.map((instance) => instance.child), workers],
          true,
        );
        line(
          `2 serve --queue -c 0 + ${count} worker${count === 1 ? "" : "s"}`,
          result,
          `fronts ${result.cpu[0].toFixed(1)} + workers ${result.cpu[1].toFixed(1)}`,
        );
        const after = await inProcessBatch(false);
        const around = (before.perSecond + after.perSecond) / 2;
        console.log(
          `    ${count} worker${count === 1 ? "" : "s"}: ${(result.perSecond / around).toFixed(2)}x the in-process rate around it (${around.toFixed(1)}/s)`,
        );
        before = after;
      }
    } finally {
      redis.disconnect();
    }
  }
} finally {
  await cleanup();
}
