// MCP servers' cost to a run.
// 1. Start-up: time from process start to the first model request of a `query()` run with
//    0, 1 and 3 stdio servers. Servers connect in parallel, so 3 servers must add about what
//    one adds, not three times as much. Two kinds of server: server-everything (real start-up
//    work, which on a 2-core machine competes for CPU) and our test server behind a 300 ms
//    start delay (waiting, not CPU: shows the overlap alone). Baseline from the same run: a
//    bare MCP SDK client spawning, initializing and listing one such server.
// 2. One tool call: Gyre's MCP tool (input check + call + result conversion) against a bare
//    MCP SDK client calling the same server's tool in the same run. Target: under 1 ms added.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { connectMcpServers } from "../dist/mcp/index.js";
import { startMockLLM } from "../dist/testing/index.js";
import { ToolRegistry } from "../dist/tools/index.js";

const RUNS = 5;
const CALLS = 2000;
const DELAY_MS = 300;
const everything = resolve("node_modules/@modelcontextprotocol/server-everything/dist/index.js");
const testServer = resolve("test/fixtures/mcp-test-server.mjs");
const scratch = mkdtempSync(join(tmpdir(), "gyre-bench-mcp-"));
// The test server, started after DELAY_MS of waiting (a server that is slow to come up).
const delayed = join(scratch, "delayed-server.mjs");
writeFileSync(
  delayed,
  `await new Promise((r) => setTimeout(r, ${DELAY_MS}));\nawait import(${JSON.stringify(pathToFileURL(testServer).href)});\n`,
);

const kinds = {
  "server-everything": { command: process.execPath, args: [everything, "stdio"] },
  [`test server, ${DELAY_MS} ms start delay`]: { command: process.execPath, args: [delayed] },
};

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (x) => `${x.toFixed(0)} ms`;

// A child process that runs one query() with `count` servers; the mock server records when
// the first request arrives.
const child = `
const [count, config] = [Number(process.argv[1]), JSON.parse(process.argv[2])];
const { query } = await import(${JSON.stringify(pathToFileURL(resolve("dist/index.js")).href)});
const mcpServers = Object.fromEntries(Array.from({ length: count }, (_, i) => ["s" + i, config]));
const q = query({ prompt: "hi", options: { model: "anthropic/claude-sonnet-4-5", persistSession: false, tools: [], mcpServers } });
for await (const m of q) if (m.type === "system" && m.subtype === "init" && m.mcp_servers.some((s) => s.status !== "connected")) throw new Error(JSON.stringify(m.mcp_servers));
`;

async function firstRequestMs(server, count, config) {
  server.reset();
  server.setScript({ turns: [{ content: [{ type: "text", text: "hello" }] }] });
  const started = Date.now();
  const proc = spawn(process.execPath, ["--input-type=module", "-e", child, String(count), JSON.stringify(config)], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ANTHROPIC_API_KEY: "bench", ANTHROPIC_BASE_URL: server.baseURL },
  });
  let stderr = "";
  proc.stderr.on("data", (d) => (stderr += d));
  const code = await new Promise((done) => proc.on("close", done));
  if (code !== 0) throw new Error(`run with ${count} servers failed (${code}): ${stderr}`);
  return Date.parse(server.requests[0].receivedAt) - started;
}

/** A bare MCP SDK client: spawn, initialize and list tools of one server. */
async function bareConnectMs(config) {
  const started = performance.now();
  const client = new Client({ name: "bench", version: "0" });
  await client.connect(new StdioClientTransport({ command: config.command, args: config.args, stderr: "ignore" }));
  await client.listTools();
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

const server = await startMockLLM({ script: { turns: [] } });
await firstRequestMs(server, 0, kinds["server-everything"]); // warms the disk cache
const zero = [];
for (let i = 0; i < RUNS; i++) zero.push(await firstRequestMs(server, 0, kinds["server-everything"]));
const none = median(zero);
console.log(`query() start to first model request (median of ${RUNS} runs):`);
console.log(`  0 servers: ${ms(none)}`);
for (const [kind, config] of Object.entries(kinds)) {
  const one = [];
  const three = [];
  const bare = [];
  for (let i = 0; i < RUNS; i++) {
    one.push(await firstRequestMs(server, 1, config));
    three.push(await firstRequestMs(server, 3, config));
    bare.push(await bareConnectMs(config));
  }
  const added1 = median(one) - none;
  const added3 = median(three) - none;
  console.log(
    `  ${kind}: 1 server +${ms(added1)}, 3 servers +${ms(added3)} = ${(added3 / added1).toFixed(2)}x one server ` +
      `(target about 1x, not 3x); baseline: a bare MCP SDK client connecting one takes ${ms(median(bare))}`,
  );
}
await server.close();

// One tool call, Gyre's MCP tool against the bare client, interleaved in rounds.
const config = { command: process.execPath, args: [testServer] };
const gyre = await connectMcpServers({ s: config }, { cwd: scratch, signal: new AbortController().signal });
const registry = new ToolRegistry();
gyre.attach(registry, () => false);
const add = registry.get("mcp__s__add");
const bareClient = new Client({ name: "bench", version: "0" });
await bareClient.connect(new StdioClientTransport({ ...config, stderr: "ignore" }));
// One signal for every call, as a run passes its own signal to each call.
const context = {
  cwd: scratch,
  signal: new AbortController().signal,
  sessionId: "bench",
  toolUseId: "bench",
  session: undefined,
  reportProgress() {},
  emit() {},
};
async function viaGyre(i) {
  // As the loop does per call: check the input against the tool's schema, then execute.
  const input = add.inputSchema.parse({ a: i, b: 1 });
  const result = await add.execute(input, context);
  if (result.content !== String(i + 1)) throw new Error(`unexpected result ${JSON.stringify(result)}`);
}
async function viaBare(i) {
  const result = await bareClient.callTool({ name: "add", arguments: { a: i, b: 1 } });
  if (result.content[0].text !== String(i + 1)) throw new Error("unexpected result");
}
async function timeCalls(call) {
  const started = performance.now();
  for (let i = 0; i < CALLS; i++) await call(i);
  return (performance.now() - started) / CALLS;
}
await timeCalls(viaGyre); // warm-up
await timeCalls(viaBare);
const gyreTimes = [];
const bareTimes = [];
for (let round = 0; round < RUNS; round++) {
  gyreTimes.push(await timeCalls(viaGyre));
  bareTimes.push(await timeCalls(viaBare));
}
const perCall = median(gyreTimes);
const barePerCall = median(bareTimes);
console.log(`one MCP tool call over stdio (median of ${RUNS} rounds of ${CALLS} calls):`);
console.log(
  `  Gyre's MCP tool ${(perCall * 1000).toFixed(0)} µs, bare MCP SDK client ${(barePerCall * 1000).toFixed(0)} µs: ` +
    `${(perCall / barePerCall).toFixed(2)}x, ${((perCall - barePerCall) * 1000).toFixed(0)} µs added (target < 1 ms)`,
);
await gyre.close();
await bareClient.close();
rmSync(scratch, { recursive: true, force: true });
