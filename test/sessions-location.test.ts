import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { defaultSqlitePath, openSqliteSessionStore, projectSqlitePath, SDKMessage } from "../src/index.js";
import { type MockLLMServer, startMockLLM } from "../src/testing/index.js";
import { assistant, prompt } from "./sessions-fixtures.js";

const execFileAsync = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");

let server: MockLLMServer;
let root: string;
let home: string;
let project: string;

beforeAll(async () => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
  server = await startMockLLM({
    script: { mode: "history", turns: ["one", "two", "three"].map((text) => ({ content: [{ type: "text", text }] })) },
  });
});
afterAll(async () => {
  await server?.close();
});

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "gyre-location-"));
  home = join(root, "home");
  project = join(root, "project");
  mkdirSync(home);
  mkdirSync(project);
  return () => rmSync(root, { recursive: true, force: true });
});

/** `gyre` with a throwaway HOME and neither GYRE_HOME nor XDG_DATA_HOME, unless `env` sets them. */
async function gyre(cwd: string, args: string[], env: Record<string, string> = {}) {
  const { GYRE_HOME: _gyreHome, XDG_DATA_HOME: _xdg, ...inherited } = process.env;
  const outcome = await execFileAsync(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...inherited, HOME: home, ANTHROPIC_API_KEY: "mock", ANTHROPIC_BASE_URL: server.baseURL, ...env },
  }).catch((error: { code: number; stdout: string; stderr: string }) => error);
  return { code: "code" in outcome ? outcome.code : 0, stdout: outcome.stdout, stderr: outcome.stderr };
}

async function run(cwd: string, text: string, flags: string[] = [], env: Record<string, string> = {}) {
  const outcome = await gyre(cwd, ["run", text, "--output-format", "json", ...flags], env);
  expect(outcome.code, outcome.stderr).toBe(0);
  const result = SDKMessage.parse(JSON.parse(outcome.stdout));
  if (result.type !== "result") throw new Error(`expected a result, got ${result.type}`);
  return result;
}

describe("where sessions are kept", () => {
  it("defaults to ~/.gyre/sessions.db under HOME: one database for every project, nothing in the project", async () => {
    const first = await run(project, "hello");
    expect(existsSync(join(home, ".gyre", "sessions.db"))).toBe(true);
    expect(existsSync(join(project, ".gyre"))).toBe(false);

    const other = join(root, "other");
    mkdirSync(other);
    expect((await gyre(other, ["sessions", "list"])).stdout).toBe(`no sessions in ${other}\n`);
    expect((await gyre(project, ["sessions", "list"])).stdout).toContain(first.session_id);
    // Resume by id works from any folder; the session stays in its project.
    const resumed = await run(other, "again", ["--resume", first.session_id]);
    expect(resumed.session_id).toBe(first.session_id);
    expect(existsSync(join(other, ".gyre"))).toBe(false);
    // A symlink to the project is the same project.
    const link = join(root, "link");
    symlinkSync(project, link);
    expect((await gyre(link, ["sessions", "list"])).stdout).toContain(first.session_id);
    const continued = await run(link, "and on", ["--continue"]);
    expect(continued.session_id).toBe(first.session_id);
  });

  it("$GYRE_HOME wins over $XDG_DATA_HOME, which wins over HOME", async () => {
    const xdg = join(root, "xdg");
    await run(project, "in xdg", [], { XDG_DATA_HOME: xdg });
    expect(existsSync(join(xdg, "gyre", "sessions.db"))).toBe(true);
    const gyreHome = join(root, "gyre-home");
    await run(project, "in gyre home", [], { XDG_DATA_HOME: xdg, GYRE_HOME: gyreHome });
    expect(existsSync(join(gyreHome, "sessions.db"))).toBe(true);
    expect(existsSync(join(home, ".gyre"))).toBe(false);
    expect(defaultSqlitePath({ GYRE_HOME: "/g", XDG_DATA_HOME: "/x" })).toBe("/g/sessions.db");
    expect(defaultSqlitePath({ XDG_DATA_HOME: "/x" })).toBe("/x/gyre/sessions.db");
  });

  it("imports a project's .gyre/sessions.db of an earlier Gyre once, so its sessions list and continue", async () => {
    // Written by the store itself at the old default place, as earlier versions did.
    const oldPath = projectSqlitePath(project);
    const old = openSqliteSessionStore({ path: oldPath });
    await old.createSession({ id: "old-session", cwd: project });
    await old.append("old-session", prompt("old-session", "from before the upgrade"));
    await old.append("old-session", assistant("old-session", [{ type: "text", text: "one" }]));
    await old.close();
    const oldBytes = readFileSync(oldPath);

    const listed = await gyre(project, ["sessions", "list", "--json"]);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: "old-session", project, messageCount: 2 }]);
    const continued = await run(project, "what came before?", ["--continue"]);
    expect(continued.session_id).toBe("old-session");
    const body = JSON.stringify(server.requests.at(-1)?.body);
    expect(body).toContain("from before the upgrade");
    // Imported once: the continued session is not copied over again, and the old file is as it was.
    const again = JSON.parse((await gyre(project, ["sessions", "list", "--json"])).stdout) as unknown[];
    expect(again).toHaveLength(1);
    expect(again[0]).toMatchObject({ id: "old-session", runs: 1 });
    expect(readFileSync(oldPath).equals(oldBytes)).toBe(true);
  });
});
