// `gyre serve` under load, against the same requests sent straight at its upstream in the same run.
// The upstream is `gyre mock-llm` (zero latency, OpenAI Responses wire format) on loopback, and
// `gyre serve` is the real CLI (SQLite store), each in its own process; the load comes from this one.
// 1. autocannon drives 200 concurrent streaming responses at the mock, then through gyre serve:
//    requests/s and p50/p99 latency (to the end of the stream), and the latency Gyre adds.
//    With a zero-latency upstream that latency is a queue: ~200 x the CPU time per response, which
//    is printed too. Then 200 concurrent streams once more, timing the first byte of each.
// 1b. 200 streams in flight as a model streams them (seconds each, arriving at a steady rate), the
//    same requests straight at the mock and through gyre serve: what Gyre adds to each stream, p50
//    and p99. Target: under 5 ms added at p99. What is added is mostly waiting for a busy core, so
//    the CPU each process used over the run is printed too (cores busy, and gyre serve's per response).
//    Two floors, measured on the same streams: a bare Node.js streaming proxy (what one process
//    adds by reading a socket and writing another), and a server that does nothing but stream each
//    response through the AI SDK's OpenAI Responses model, as every Gyre model call does (DESIGN.md
//    has provider wire formats go through the AI SDK's packages). Gyre cannot add less than that.
// 2. 1,000 concurrent streams held open for 30 s (the mock sends one word a second): gyre serve's
//    resident memory sampled during and after the ramp; memory per in-flight response; every
//    stream must end with response.completed and [DONE]. Target: flat memory, no errors.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import autocannon from "autocannon";

const CONNECTIONS = 200;
const DURATION_S = 8;
const PACED_WORDS = 40;
const PACED_CHUNK_MS = 100;
const PACED_SECONDS = 12;
const HOLD_STREAMS = 1000;
const HOLD_SECONDS = 30;
// Each held stream lasts this much longer, so that all of them are open together for HOLD_SECONDS
// even when starting 1,000 responses takes a while on a busy machine.
const RAMP_ALLOWANCE_SECONDS = 20;
const gyre = resolve("dist/bin/gyre.js");
const scratch = mkdtempSync(join(tmpdir(), "gyre-bench-serve-"));
const children = [];

/** Starts a gyre CLI command and resolves with the first URL it prints. */
function start(args, env = {}, nodeFlags = []) {
  return launch([...nodeFlags, gyre, ...args], env, args[0]);
}

/** Starts a Node.js process and resolves with the first URL it prints. */
function launch(argv, env, name) {
  const child = spawn(process.execPath, argv, {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  return new Promise((done, fail) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1];
      if (url) done({ child, url: url.replace(/\/v1$/, "") });
    });
    child.once("exit", (code) => fail(new Error(`${name} exited ${code}`)));
  });
}

// Loaded into the held-streams server: every second, a full GC, then the live heap and RSS to a
// file. RSS alone mostly shows how lazily V8 collects; the heap after a GC is what is held.
const samplesFile = join(scratch, "memory.log");
const samplerFile = join(scratch, "sampler.mjs");
writeFileSync(
  samplerFile,
  `import { appendFileSync } from "node:fs";
setInterval(() => {
  globalThis.gc();
  const { heapUsed, rss } = process.memoryUsage();
  try { appendFileSync(${JSON.stringify(samplesFile)}, \`\${performance.timeOrigin + performance.now()} \${heapUsed} \${rss}\\n\`); } catch {}
}, 1000).unref();
`,
);
const MiB = 1024 * 1024;
function memorySamples() {
  return readFileSync(samplesFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => line.split(" ").map(Number))
    .map(([at, heap, rss]) => ({ at, heap: heap / MiB, rss: rss / MiB }));
}

/** A series' value in a Prometheus exposition (undefined when absent). */
function seriesValue(text, series) {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** The server's own event-loop delay and GC pauses (prom-client's collectors in /metrics) over a window. */
async function runtimeWindow(serverUrl, work) {
  const scrape = async () => (await fetch(`${serverUrl}/metrics`)).text();
  const gc = (text) =>
    text
      .split("\n")
      .filter((line) => /^nodejs_gc_duration_seconds_(sum|count)\{/.test(line))
      .reduce(
        (totals, line) => {
          const value = Number(line.slice(line.lastIndexOf(" ") + 1));
          if (line.startsWith("nodejs_gc_duration_seconds_sum")) totals.seconds += value;
          else totals.count += value;
          return totals;
        },
        { seconds: 0, count: 0 },
      );
  const before = gc(await scrape()); // this scrape also restarts the event-loop delay histogram
  const started = performance.now();
  const result = await work();
  const elapsedMs = performance.now() - started;
  const text = await scrape();
  const after = gc(text);
  const ms = (series) => (seriesValue(text, series) ?? NaN) * 1000;
  return {
    result,
    loop: {
      p50: ms("nodejs_eventloop_lag_p50_seconds"),
      p99: ms("nodejs_eventloop_lag_p99_seconds"),
      max: ms("nodejs_eventloop_lag_max_seconds"),
    },
    gc: { count: after.count - before.count, ms: (after.seconds - before.seconds) * 1000, elapsedMs },
  };
}

async function control(mockUrl, path, body) {
  const response = await fetch(`${mockUrl}${path}`, { method: "POST", body: JSON.stringify(body ?? {}) });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
}

const body = JSON.stringify({ model: "openai/gpt-5", input: "Say hello.", stream: true });

function load(url) {
  return autocannon({
    url,
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
    connections: CONNECTIONS,
    duration: DURATION_S,
  });
}

/** One streaming request: its time to first byte, when it started and ended, and whether it ended well. */
function oneStream(target, agent) {
  return new Promise((done) => {
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
            firstByteMs,
            firstByteAt,
            totalMs: performance.now() - started,
            endedAt: Date.now(),
            // gyre serve ends with `data: [DONE]` (the spec's SSE); the mock, as OpenAI, need not.
            ok: res.statusCode === 200 && text.includes("response.completed"),
            done: text.trimEnd().endsWith("[DONE]"),
          }),
        );
        res.on("error", () => done({ firstByteMs, ok: false }));
      },
    );
    req.on("error", () => done({ firstByteMs, ok: false }));
    req.setHeader("content-type", "application/json");
    req.end(body);
  });
}

/** `count` concurrent streaming requests; resolves with each one's time to first byte and whether it ended well. */
function streams(url, count) {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const target = new URL(url);
  return Promise.all(Array.from({ length: count }, () => oneStream(target, agent)));
}

/** `count` streaming requests started at a steady `perSecond` (an open load: arrivals do not wait for answers). */
async function pacedStreams(url, count, perSecond) {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const target = new URL(url);
  const started = performance.now();
  const pending = [];
  for (let index = 0; index < count; index++) {
    const due = started + (index * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((done) => setTimeout(done, wait));
    pending.push(oneStream(target, agent));
  }
  const results = await Promise.all(pending);
  agent.destroy();
  return results;
}

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; undefined elsewhere). */
function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (x) => `${x.toFixed(1)} ms`;

try {
  const quick = { turns: [{ content: [{ type: "text", text: "Hello from the mock upstream." }] }] };
  const scriptFile = join(scratch, "script.json");
  writeFileSync(scriptFile, JSON.stringify(quick));
  const mock = await start(["mock-llm", "--script", scriptFile]);
  const server = await start(["serve", "--port", "0", "--quiet", "--db", join(scratch, "serve.db")], {
    OPENAI_BASE_URL: `${mock.url}/v1`,
    OPENAI_API_KEY: "mock",
  });
  const direct = `${mock.url}/v1/responses`;
  const through = `${server.url}/v1/responses`;

  // Warm both paths (JIT, SQLite pages, connection pools) before measuring.
  await streams(direct, CONNECTIONS);
  await streams(through, CONNECTIONS);
  await control(mock.url, "/_mock/reset");

  const cpuBefore = [cpuMs(mock.child.pid), cpuMs(server.child.pid)];
  const bare = await load(direct);
  await control(mock.url, "/_mock/reset");
  const cpuBetween = [cpuMs(mock.child.pid), cpuMs(server.child.pid)];
  const served = await load(through);
  await control(mock.url, "/_mock/reset");
  const cpuAfter = [cpuMs(mock.child.pid), cpuMs(server.child.pid)];
  const errors = (result) => result.errors + result.timeouts + result.non2xx;
  console.log(`${CONNECTIONS} concurrent streaming responses for ${DURATION_S} s (autocannon):`);
  for (const [name, result] of [
    ["straight at the mock", bare],
    ["through gyre serve", served],
  ])
    console.log(
      `  ${name.padEnd(22)} ${result.requests.average.toFixed(0).padStart(6)} req/s  p50 ${ms(result.latency.p50)}  p99 ${ms(result.latency.p99)}  errors ${errors(result)}`,
    );
  const addedP50 = served.latency.p50 - bare.latency.p50;
  const addedP99 = served.latency.p99 - bare.latency.p99;
  console.log(
    `  gyre serve adds: p50 ${ms(addedP50)}, p99 ${ms(addedP99)} (target < 5 ms at p99: ${addedP99 < 5 ? "met" : "MISSED"})`,
  );

  if (cpuBefore.every((value) => value !== undefined)) {
    const perResponse = (ms, result) => `${(ms / result.requests.total).toFixed(2)} ms`;
    console.log(
      `  CPU per response: the mock ${perResponse(cpuBetween[0] - cpuBefore[0], bare)}; through gyre serve: ` +
        `gyre serve ${perResponse(cpuAfter[1] - cpuBetween[1], served)}, the mock ${perResponse(cpuAfter[0] - cpuBetween[0], served)}. ` +
        `Closed-loop latency with ${CONNECTIONS} in flight is ~${CONNECTIONS} x the CPU per response: it measures throughput.`,
    );
  }

  // 1b. The same 200 streams as an upstream model gives them: each takes seconds (one word every
  // PACED_CHUNK_MS), and they arrive at a steady rate that keeps ~200 in flight. What Gyre adds
  // is then its own work per response, not a queue behind a saturated core.
  const pacedWords = Array.from({ length: PACED_WORDS }, (_, index) => `w${index}`).join(" ");
  await control(mock.url, "/_mock/script", {
    turns: [{ content: [{ type: "text", text: pacedWords }], chunkDelayMs: PACED_CHUNK_MS }],
  });
  const streamSeconds = (PACED_WORDS * PACED_CHUNK_MS) / 1000;
  const rate = CONNECTIONS / streamSeconds;
  const pacedCount = Math.round(rate * PACED_SECONDS);
  await control(mock.url, "/_mock/reset");
  const pacedBare = await pacedStreams(direct, pacedCount, rate);
  await control(mock.url, "/_mock/reset");
  const pacedCpuBefore = [cpuMs(server.child.pid), cpuMs(mock.child.pid), cpuMs(process.pid)];
  const pacedWindow = await runtimeWindow(server.url, () => pacedStreams(through, pacedCount, rate));
  const pacedCpu = [cpuMs(server.child.pid), cpuMs(mock.child.pid), cpuMs(process.pid)].map(
    (value, index) => value - pacedCpuBefore[index],
  );
  const pacedServed = pacedWindow.result;
  // The floors: the same streams through a bare Node.js proxy, and through a server that only
  // streams them with the AI SDK, each in its own process, as gyre serve is.
  const floor = async (script) => {
    const server = await launch([resolve(script)], { UPSTREAM_URL: mock.url }, script);
    await streams(`${server.url}/v1/responses`, CONNECTIONS); // warm, as gyre serve was
    await control(mock.url, "/_mock/reset");
    const before = cpuMs(server.child.pid);
    const results = await pacedStreams(`${server.url}/v1/responses`, pacedCount, rate);
    const cpu = cpuMs(server.child.pid) - before;
    server.child.kill("SIGTERM");
    await control(mock.url, "/_mock/reset");
    return { results, cpuPerResponse: cpu / pacedCount };
  };
  const floors = [
    ["a bare Node.js streaming proxy (bench/stream-proxy.mjs)", await floor("bench/stream-proxy.mjs")],
    ["the AI SDK alone, streaming each response (bench/ai-sdk-proxy.mjs)", await floor("bench/ai-sdk-proxy.mjs")],
  ];
  const totals = (results) => results.map((result) => result.totalMs ?? Infinity);
  const firsts = (results) => results.map((result) => result.firstByteMs ?? Infinity);
  const pacedAdded = (p, results = pacedServed) => percentile(totals(results), p) - percentile(totals(pacedBare), p);
  const pacedFirstAdded = (p) => percentile(firsts(pacedServed), p) - percentile(firsts(pacedBare), p);
  console.log(
    `${CONNECTIONS} streams in flight, each ~${streamSeconds} s (${PACED_WORDS} words, one per ${PACED_CHUNK_MS} ms), ` +
      `${rate.toFixed(0)} new a second for ${PACED_SECONDS} s (${pacedCount} responses):`,
  );
  console.log(
    `  gyre serve adds to the whole stream: p50 ${ms(pacedAdded(50))}, p99 ${ms(pacedAdded(99))} ` +
      `(target < 5 ms at p99: ${pacedAdded(99) < 5 ? "met" : "MISSED"}); to the first byte: p50 ${ms(pacedFirstAdded(50))}, p99 ${ms(pacedFirstAdded(99))}; ` +
      `errors ${pacedServed.filter((result) => !result.ok || !result.done).length + pacedBare.filter((result) => !result.ok).length}`,
  );
  for (const [name, { results, cpuPerResponse }] of floors)
    console.log(
      `  the floor, ${name} adds: p50 ${ms(pacedAdded(50, results))}, p99 ${ms(pacedAdded(99, results))}; ` +
        `${cpuPerResponse.toFixed(1)} ms of CPU per response; errors ${results.filter((result) => !result.ok).length}`,
    );
  const { loop, gc } = pacedWindow;
  console.log(
    `  gyre serve's event loop meanwhile (/metrics): delay p50 ${ms(loop.p50)}, p99 ${ms(loop.p99)}, max ${ms(loop.max)}; ` +
      `GC ${gc.count} pauses, ${ms(gc.ms)} in all (${((gc.ms / gc.elapsedMs) * 100).toFixed(1)}% of the ${(gc.elapsedMs / 1000).toFixed(0)} s)`,
  );
  // Added latency is mostly waiting for a busy core: how busy each process kept one, and per response.
  if (pacedCpu.every((value) => !Number.isNaN(value))) {
    const cores = (cpu) => (cpu / gc.elapsedMs).toFixed(2);
    console.log(
      `  CPU over the run (cores busy, of ${availableParallelism()}): gyre serve ${cores(pacedCpu[0])} (${(pacedCpu[0] / pacedCount).toFixed(1)} ms per response), ` +
        `the mock ${cores(pacedCpu[1])}, the load generator ${cores(pacedCpu[2])}`,
    );
  }
  await control(mock.url, "/_mock/script", quick);
  await control(mock.url, "/_mock/reset");

  const ttfbBare = await streams(direct, CONNECTIONS);
  const ttfbServed = await streams(through, CONNECTIONS);
  const firstBytes = (results) => results.map((result) => result.firstByteMs ?? Infinity);
  console.log(
    `  time to first byte, ${CONNECTIONS} at once: mock p50 ${ms(percentile(firstBytes(ttfbBare), 50))} p99 ${ms(percentile(firstBytes(ttfbBare), 99))}; ` +
      `gyre serve p50 ${ms(percentile(firstBytes(ttfbServed), 50))} p99 ${ms(percentile(firstBytes(ttfbServed), 99))}`,
  );

  // 2. Streams held open: one word a second for HOLD_SECONDS, through a server that samples its memory.
  server.child.kill("SIGTERM");
  const holder = await start(
    ["serve", "--port", "0", "--quiet", "--db", join(scratch, "hold.db")],
    { OPENAI_BASE_URL: `${mock.url}/v1`, OPENAI_API_KEY: "mock" },
    ["--expose-gc", "--import", pathToFileURL(samplerFile).href],
  );
  const words = Array.from({ length: HOLD_SECONDS + RAMP_ALLOWANCE_SECONDS }, (_, index) => `word${index}`).join(" ");
  await control(mock.url, "/_mock/script", {
    turns: [{ content: [{ type: "text", text: words }], chunkDelayMs: 1000 }],
  });
  await control(mock.url, "/_mock/reset");
  await new Promise((done) => setTimeout(done, 2500));
  // How many responses the server has in flight, from its own /metrics.
  const inFlight = [];
  const counter = setInterval(async () => {
    const text = await (await fetch(`${holder.url}/metrics`)).text();
    inFlight.push({ at: Date.now(), count: Number(/^gyre_responses_in_flight (\d+)/m.exec(text)?.[1]) });
  }, 1000);
  const holdStarted = Date.now();
  const held = await streams(`${holder.url}/v1/responses`, HOLD_STREAMS);
  const holdEnded = Date.now();
  clearInterval(counter);
  await new Promise((done) => setTimeout(done, 3000));
  const samples = memorySamples();
  const rampEnded = Math.max(...held.map((result) => result.firstByteAt ?? holdEnded));
  const failed = held.filter((result) => !result.ok || !result.done).length;
  const peak = Math.max(...inFlight.map((sample) => sample.count));
  // The plateau: the seconds when (nearly) all of the streams were in flight together.
  const plateau = inFlight.filter((sample) => sample.count >= 0.9 * peak);
  const heapAt = (at) =>
    samples.reduce((best, sample) => (Math.abs(sample.at - at) < Math.abs(best.at - at) ? sample : best));
  const held0 = heapAt(plateau[0].at);
  const held1 = heapAt(plateau.at(-1).at);
  const idle = samples.filter((sample) => sample.at < holdStarted).at(-1);
  const after = samples.at(-1);
  console.log(
    `${HOLD_STREAMS} concurrent streams through gyre serve, each open ${HOLD_SECONDS + RAMP_ALLOWANCE_SECONDS} s:`,
  );
  console.log(
    `  completed ${HOLD_STREAMS - failed}, errors ${failed}; peak in flight (gyre_responses_in_flight) ${peak}, ` +
      `>= 90% of it for ${((plateau.at(-1).at - plateau[0].at) / 1000).toFixed(0)} s; ` +
      `last first byte after ${((rampEnded - holdStarted) / 1000).toFixed(1)} s, all done in ${((holdEnded - holdStarted) / 1000).toFixed(1)} s`,
  );
  console.log(
    `  live heap after GC: idle ${idle.heap.toFixed(0)} MiB; over the plateau ${held0.heap.toFixed(0)} -> ${held1.heap.toFixed(0)} MiB; ` +
      `after ${after.heap.toFixed(0)} MiB. RSS: idle ${idle.rss.toFixed(0)}, plateau ${held0.rss.toFixed(0)} -> ${held1.rss.toFixed(0)}, after ${after.rss.toFixed(0)} MiB`,
  );
  console.log(
    `  memory per in-flight response (live heap): ${(((held0.heap - idle.heap) * 1024) / peak).toFixed(0)} KiB`,
  );
  console.log(
    `  per second (in flight/heap MiB): ${inFlight
      .map((sample) => `${sample.count}/${heapAt(sample.at).heap.toFixed(0)}`)
      .join(" ")}`,
  );
  if (failed > 0 || errors(served) > 0) process.exitCode = 1;
} finally {
  for (const child of children) child.kill("SIGTERM");
  rmSync(scratch, { recursive: true, force: true });
}
