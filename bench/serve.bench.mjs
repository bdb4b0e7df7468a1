// `gyre serve` under load, against the same requests sent straight at its upstream in the same run.
// The upstream is `gyre mock-llm` (zero latency, OpenAI Responses wire format) on loopback, and
// `gyre serve` is the real CLI (SQLite store), each in its own process; the load comes from this one.
// 1. autocannon drives 200 concurrent streaming responses at the mock, then through gyre serve:
//    requests/s and p50/p99 latency (to the end of the stream), and the latency Gyre adds.
//    Target: under 5 ms added at p99. Then 200 concurrent streams once more, timing the first
//    byte of each.
// 2. 1,000 concurrent streams held open for 30 s (the mock sends one word a second): gyre serve's
//    resident memory sampled during and after the ramp; memory per in-flight response; every
//    stream must end with response.completed and [DONE]. Target: flat memory, no errors.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import autocannon from "autocannon";

const CONNECTIONS = 200;
const DURATION_S = 8;
const HOLD_STREAMS = 1000;
const HOLD_SECONDS = 30;
const gyre = resolve("dist/bin/gyre.js");
const scratch = mkdtempSync(join(tmpdir(), "gyre-bench-serve-"));
const children = [];

/** Starts a gyre CLI command and resolves with the first URL it prints. */
function start(args, env = {}) {
  const child = spawn(process.execPath, [gyre, ...args], {
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
    child.once("exit", (code) => fail(new Error(`gyre ${args[0]} exited ${code}`)));
  });
}

/** Resident memory of a process in MiB (Linux /proc). */
function rssMiB(pid) {
  const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? NaN);
  return kb / 1024;
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

/** `count` concurrent streaming requests; resolves with each one's time to first byte and whether it ended well. */
function streams(url, count) {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const target = new URL(url);
  return Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise((done) => {
          const started = performance.now();
          let firstByteMs;
          let text = "";
          const req = request(
            { host: target.hostname, port: target.port, path: target.pathname, method: "POST", agent },
            (res) => {
              res.setEncoding("utf8");
              res.on("data", (chunk) => {
                firstByteMs ??= performance.now() - started;
                text += chunk;
              });
              res.on("end", () =>
                done({
                  firstByteMs,
                  ok: res.statusCode === 200 && text.includes("response.completed") && text.trimEnd().endsWith("[DONE]"),
                }),
              );
              res.on("error", () => done({ firstByteMs, ok: false }));
            },
          );
          req.on("error", () => done({ firstByteMs, ok: false }));
          req.setHeader("content-type", "application/json");
          req.end(body);
        }),
    ),
  );
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
  const server = await start(["serve", "--port", "0", "--db", join(scratch, "serve.db")], {
    OPENAI_BASE_URL: `${mock.url}/v1`,
    OPENAI_API_KEY: "mock",
  });
  const direct = `${mock.url}/v1/responses`;
  const through = `${server.url}/v1/responses`;

  // Warm both paths (JIT, SQLite pages, connection pools) before measuring.
  await streams(direct, CONNECTIONS);
  await streams(through, CONNECTIONS);
  await control(mock.url, "/_mock/reset");

  const bare = await load(direct);
  await control(mock.url, "/_mock/reset");
  const served = await load(through);
  await control(mock.url, "/_mock/reset");
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

  const ttfbBare = await streams(direct, CONNECTIONS);
  const ttfbServed = await streams(through, CONNECTIONS);
  const firstBytes = (results) => results.map((result) => result.firstByteMs ?? Infinity);
  console.log(
    `  time to first byte, ${CONNECTIONS} at once: mock p50 ${ms(percentile(firstBytes(ttfbBare), 50))} p99 ${ms(percentile(firstBytes(ttfbBare), 99))}; ` +
      `gyre serve p50 ${ms(percentile(firstBytes(ttfbServed), 50))} p99 ${ms(percentile(firstBytes(ttfbServed), 99))}`,
  );

  // 2. Streams held open: one word a second for HOLD_SECONDS.
  const words = Array.from({ length: HOLD_SECONDS }, (_, index) => `word${index}`).join(" ");
  await control(mock.url, "/_mock/script", {
    turns: [{ content: [{ type: "text", text: words }], chunkDelayMs: 1000 }],
  });
  await control(mock.url, "/_mock/reset");
  const idle = rssMiB(server.child.pid);
  const samples = [];
  const sampler = setInterval(() => samples.push({ at: performance.now(), rss: rssMiB(server.child.pid) }), 1000);
  const holdStarted = performance.now();
  const held = await streams(through, HOLD_STREAMS);
  const holdEnded = performance.now();
  // After the streams: a few samples of the idle server.
  await new Promise((done) => setTimeout(done, 3000));
  clearInterval(sampler);
  const during = samples.filter((sample) => sample.at > holdStarted + 5000 && sample.at < holdEnded - 1000);
  const after = rssMiB(server.child.pid);
  const failed = held.filter((result) => !result.ok).length;
  const peak = Math.max(...during.map((sample) => sample.rss));
  const first = during[0]?.rss ?? NaN;
  const last = during.at(-1)?.rss ?? NaN;
  console.log(`${HOLD_STREAMS} concurrent streams held open ${HOLD_SECONDS} s through gyre serve:`);
  console.log(`  completed ${HOLD_STREAMS - failed}, errors ${failed} (in ${((holdEnded - holdStarted) / 1000).toFixed(1)} s)`);
  console.log(
    `  gyre serve RSS: idle ${idle.toFixed(0)} MiB; during the hold, 5 s after the ramp ${first.toFixed(0)} MiB, ` +
      `last ${last.toFixed(0)} MiB, peak ${peak.toFixed(0)} MiB (growth over the hold ${(last - first).toFixed(0)} MiB); after ${after.toFixed(0)} MiB`,
  );
  console.log(`  memory per in-flight response: ${(((first - idle) * 1024) / HOLD_STREAMS).toFixed(0)} KiB`);
  console.log(`  samples (s: MiB): ${samples.map((s) => `${((s.at - holdStarted) / 1000).toFixed(0)}:${s.rss.toFixed(0)}`).join(" ")}`);
  if (failed > 0 || errors(served) > 0) process.exitCode = 1;
} finally {
  for (const child of children) child.kill("SIGTERM");
  rmSync(scratch, { recursive: true, force: true });
}
