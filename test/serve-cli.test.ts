import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, withMock } from "./helpers.js";

const CLI = resolve("dist/bin/gyre.js");
const children: ChildProcess[] = [];

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
});

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
});

/** Starts `gyre serve` and waits for the line with its URL; `stderr()` is what it wrote there so far. */
async function startServe(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string; stderr: () => string }> {
  const child = spawn(process.execPath, [CLI, "serve", "--port", "0", ...args], {
    env: cliEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  for await (const line of createInterface({ input: child.stdout as NodeJS.ReadableStream })) {
    const match = /listening on (http:\/\/\S+)/.exec(line);
    if (match?.[1]) return { child, url: match[1], stderr: () => stderr };
  }
  throw new Error(`gyre serve exited without printing its URL: ${stderr}`);
}

/** Waits until `read()` matches `pattern` (a log line is written when its response has ended). */
async function eventually(read: () => string, pattern: RegExp): Promise<string> {
  for (let tries = 0; tries < 100; tries++) {
    if (pattern.test(read())) return read();
    await new Promise((done) => setTimeout(done, 20));
  }
  throw new Error(`never matched ${String(pattern)}: ${read()}`);
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((done) => child.once("exit", (code) => done(code)));
}

/** The accept queue the kernel gave a listening TCP port (`ss`'s Send-Q of the LISTEN socket). */
function listenBacklog(port: number): number {
  const line = execFileSync("ss", ["-ltnH", `sport = :${port}`], { encoding: "utf8" }).trim();
  const columns = line.split(/\s+/);
  if (columns[0] !== "LISTEN") throw new Error(`no listening socket on port ${port}: ${line}`);
  return Number(columns[2]);
}

const somaxconn = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));

describe("gyre serve (the CLI)", () => {
  it("serves the config's models on 127.0.0.1 behind its API key, stores in --db, and stops on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-serve-cli-"));
    const config = join(dir, "serve.yaml");
    writeFileSync(
      config,
      "models:\n  - name: team-model\n    model: anthropic/claude-sonnet-4-5\napiKeys: [cli-key-123456]\n",
    );
    const db = join(dir, "serve.db");
    await withMock({ turns: [mockTurn.text("served by the CLI")] }, async (mock) => {
      const { child, url } = await startServe(["--config", config, "--db", db], { ...mock.env() });
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const client = new OpenAI({ baseURL: url, apiKey: "cli-key-123456", maxRetries: 0 });
      const response = await client.responses.create({ model: "team-model", input: "hello" });
      expect(response.output_text).toBe("served by the CLI");
      await expect(
        new OpenAI({ baseURL: url, apiKey: "wrong-key-000", maxRetries: 0 }).models.list(),
      ).rejects.toMatchObject({
        status: 401,
      });
      child.kill("SIGTERM");
      expect(await exitOf(child)).toBe(0);
      const store = openSqliteSessionStore({ path: db });
      try {
        expect(await store.records.responses.get(response.id)).toMatchObject({ id: response.id });
      } finally {
        await store.close();
      }
    });
  });

  it("takes the keys of the config's own providers out of its environment, and still sends them upstream", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-serve-keys-"));
    const secret = `gw-${process.pid}-${Date.now()}`;
    const config = join(dir, "serve.yaml");
    await withMock({ turns: [mockTurn.text("via the gateway")] }, async (mock) => {
      const baseURL = mock.env().ANTHROPIC_BASE_URL;
      writeFileSync(
        config,
        `providers:\n  gateway:\n    type: anthropic\n    baseURL: ${baseURL}\n    apiKeyEnv: GATEWAY_KEY\n`,
      );
      const { child, url } = await startServe(["--config", config, "--db", join(dir, "serve.db")], {
        GATEWAY_KEY: secret,
      });
      const response = await new OpenAI({ baseURL: url, apiKey: "unused", maxRetries: 0 }).responses.create({
        model: "gateway/claude-sonnet-4-5",
        input: "hello",
      });
      expect(response.output_text).toBe("via the gateway");
      expect(mock.requests[0]?.headers["x-api-key"]).toBe(secret);
      // What any process of this user could read of the server's environment.
      expect(readFileSync(`/proc/${child.pid}/environ`, "latin1")).not.toContain(secret);
    });
  });

  it("logs one line per request on stderr (method, path, status, duration, response id), and none with --quiet", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-serve-log-"));
    await withMock({ turns: [mockTurn.text("logged")] }, async (mock) => {
      const served = await startServe(["--db", join(dir, "a.db")], { ...mock.env() });
      const openai = new OpenAI({ baseURL: served.url, apiKey: "unused", maxRetries: 0 });
      const whole = await openai.responses.create({ model: "anthropic/claude-sonnet-4-5", input: "hello" });
      const stream = await openai.responses.create({
        model: "anthropic/claude-sonnet-4-5",
        input: "hi",
        stream: true,
      });
      let streamedId = "";
      for await (const event of stream) if (event.type === "response.completed") streamedId = event.response.id;
      await expect(openai.responses.create({ model: "teleport-9000", input: "hi" })).rejects.toMatchObject({
        status: 404,
      });
      await expect(openai.responses.retrieve("resp_missing")).rejects.toMatchObject({ status: 404 });
      const log = await eventually(served.stderr, /GET \/v1\/responses\/resp_missing 404/);
      const line = (text: string) => new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z ${text}$`, "m");
      expect(log).toMatch(line(`POST /v1/responses 200 \\d+ms ${whole.id}`));
      expect(log).toMatch(line(`POST /v1/responses 200 \\d+ms ${streamedId}`));
      expect(log).toMatch(line("POST /v1/responses 404 \\d+ms"));
      expect(log).toMatch(line("GET /v1/responses/resp_missing 404 \\d+ms"));
      expect(log.match(/ \/v1\//g)).toHaveLength(4);

      const quiet = await startServe(["--db", join(dir, "b.db"), "--quiet"], { ...mock.env() });
      const answer = await new OpenAI({ baseURL: quiet.url, apiKey: "unused", maxRetries: 0 }).responses.create({
        model: "anthropic/claude-sonnet-4-5",
        input: "hello",
      });
      expect(answer.status).toBe("completed");
      await new Promise((done) => setTimeout(done, 100));
      expect(quiet.stderr()).not.toContain("/v1/");
    });
  });

  it("queues 2048 connections by default and --backlog of them when given (capped by the kernel)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gyre-serve-backlog-"));
    const portOf = (url: string) => Number(new URL(url).port);
    const standard = await startServe(["--db", join(dir, "a.db")], {});
    expect(listenBacklog(portOf(standard.url))).toBe(Math.min(2048, somaxconn));
    const chosen = await startServe(["--db", join(dir, "b.db"), "--backlog", "3000"], {});
    expect(listenBacklog(portOf(chosen.url))).toBe(Math.min(3000, somaxconn));
  });

  it("refuses a --backlog that is not a count, before it listens", async () => {
    for (const value of ["0", "-5", "many", "70000"]) {
      const child = spawn(process.execPath, [CLI, "serve", "--port", "0", `--backlog=${value}`], {
        env: cliEnv({}),
        stdio: ["ignore", "pipe", "pipe"],
      });
      children.push(child);
      let output = "";
      child.stdout?.on("data", (chunk) => (output += chunk));
      child.stderr?.on("data", (chunk) => (output += chunk));
      expect(await exitOf(child)).not.toBe(0);
      expect(output).toContain("--backlog must be 1-65535");
      expect(output).not.toContain("listening on");
    }
  });
});
