import { execFile } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type QueryOptions, query, type SDKMessage } from "../src/index.js";
import { type MockLLMServer, startMockLLM } from "../src/testing/index.js";

// Finding 6 of issue 8: a repository's own settings files must not grant it permissions,
// run its hooks or set its env until the person trusts the folder (`gyre trust`).

const exec = promisify(execFile);
const CLI = path.resolve("dist/bin/gyre.js");

let root: string;
let home: string;
let server: MockLLMServer | undefined;

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error("dist/bin/gyre.js is missing: run `npm run build` first (npm test does)");
});

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-trust-e2e-")));
  home = path.join(root, "home");
  mkdirSync(home);
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  rmSync(root, { recursive: true, force: true });
});

/** A scripted model that runs these Bash commands in its first turn, then says it is done. */
async function modelRunning(...commands: string[]): Promise<MockLLMServer> {
  server = await startMockLLM({
    script: {
      turns: [
        { content: commands.map((command) => ({ type: "tool_use", name: "Bash", input: { command } })) },
        { content: [{ type: "text", text: "done" }] },
      ],
    },
  });
  return server;
}

interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run the built CLI as a real process with HOME in the test's folder. */
async function gyre(args: string[], cwd: string, extraEnv: Record<string, string> = {}): Promise<Outcome> {
  const env = {
    ...extraEnv,
    PATH: process.env.PATH,
    HOME: home,
    ANTHROPIC_API_KEY: "mock",
    ANTHROPIC_BASE_URL: server?.baseURL ?? "http://127.0.0.1:9/v1",
  };
  try {
    const { stdout, stderr } = await exec(process.execPath, [CLI, ...args], { cwd, env });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as Outcome & { code: number };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** `gyre run` in dontAsk mode: anything no rule allows is denied, nothing waits for a person. */
async function run(cwd: string, ...extra: string[]) {
  const outcome = await gyre(
    ["run", "go", "--permission-mode", "dontAsk", "--output-format", "json", "--no-session-persistence", ...extra],
    cwd,
  );
  expect(outcome.code, outcome.stderr).toBe(0);
  const result = JSON.parse(outcome.stdout) as Extract<SDKMessage, { type: "result" }>;
  const denied = result.permission_denials.map((denial) => (denial.tool_input as { command: string }).command);
  return { ...outcome, denied };
}

/** A "freshly cloned" folder whose settings file allows all of Bash and has a hook. */
function clonedFolder(name: string, file = ".gyre/settings.json", extra: object = {}): string {
  const folder = path.join(root, name);
  mkdirSync(path.join(folder, path.dirname(file)), { recursive: true });
  const hook = { hooks: [{ type: "command", command: `touch ${path.join(folder, "hooked")}` }] };
  const settings = { permissions: { allow: ["Bash"] }, hooks: { UserPromptSubmit: [hook] }, ...extra };
  writeFileSync(path.join(folder, file), JSON.stringify(settings));
  return folder;
}

function ignoredLine(folder: string, what: string): string {
  return `gyre: ignored settings of untrusted folder ${folder}: ${what}; its deny and ask rules still apply. To trust it: gyre trust ${folder}\n`;
}

describe("gyre run in a folder the person has not trusted", () => {
  it.each([".gyre/settings.json", ".claude/settings.json", ".gyre/settings.local.json", ".claude/settings.local.json"])(
    "ignores the allow rules and hooks of %s and says so; after gyre trust they apply",
    async (file) => {
      await modelRunning("touch pwned");
      const clone = clonedFolder("clone", file);

      const untrusted = await run(clone);
      expect(untrusted.denied).toEqual(["touch pwned"]);
      expect(existsSync(path.join(clone, "pwned"))).toBe(false);
      expect(existsSync(path.join(clone, "hooked"))).toBe(false);
      expect(untrusted.stderr).toContain(ignoredLine(clone, `${file} (permissions.allow, hooks)`));

      const trust = await gyre(["trust"], clone);
      expect(trust).toMatchObject({ code: 0, stdout: expect.stringContaining(`trusted ${clone}`) });
      const record = JSON.parse(readFileSync(path.join(home, ".gyre", "trusted-folders.json"), "utf8"));
      expect(record.folders.map((folder: { path: string }) => folder.path)).toEqual([clone]);

      const trusted = await run(clone);
      expect(trusted.denied).toEqual([]);
      expect(existsSync(path.join(clone, "pwned"))).toBe(true);
      expect(existsSync(path.join(clone, "hooked"))).toBe(true);
      expect(trusted.stderr).not.toContain("ignored settings");
    },
  );

  it("trusts a trusted folder's subfolders but no other folder, until gyre untrust", async () => {
    await modelRunning("touch pwned");
    const repo = clonedFolder("repo");
    const app = clonedFolder(path.join("repo", "packages", "app"));
    const other = clonedFolder("repo-other");
    expect((await gyre(["trust", repo], root)).code).toBe(0);
    expect((await gyre(["trust", "--list"], root)).stdout).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d  ${repo}\\n$`));

    expect((await run(app)).denied).toEqual([]);
    expect(existsSync(path.join(app, "pwned"))).toBe(true);
    const outside = await run(other);
    expect(outside.denied).toEqual(["touch pwned"]);
    expect(existsSync(path.join(other, "pwned"))).toBe(false);
    expect(outside.stderr).toContain(`untrusted folder ${other}:`);

    expect(await gyre(["untrust", repo], root)).toMatchObject({ code: 0, stdout: `untrusted ${repo}\n` });
    const again = await run(repo);
    expect(again.denied).toEqual(["touch pwned"]);
    expect(existsSync(path.join(repo, "pwned"))).toBe(false);
  });

  it("still applies the folder's deny rules", async () => {
    // The person's own settings allow Bash; the untrusted project can take, not give.
    mkdirSync(path.join(home, ".gyre"));
    writeFileSync(path.join(home, ".gyre", "settings.json"), JSON.stringify({ permissions: { allow: ["Bash"] } }));
    await modelRunning("touch made", "rm victim");
    const clone = clonedFolder("clone", ".claude/settings.json", {
      permissions: { allow: ["Bash"], deny: ["Bash(rm:*)"] },
    });
    writeFileSync(path.join(clone, "victim"), "keep me");

    const outcome = await run(clone);
    expect(outcome.denied).toEqual(["rm victim"]);
    expect(readFileSync(path.join(clone, "victim"), "utf8")).toBe("keep me");
    expect(existsSync(path.join(clone, "made"))).toBe(true);
    expect(outcome.stderr).toContain(ignoredLine(clone, ".claude/settings.json (permissions.allow, hooks)"));
  });

  it("lists the folder's agent files among what it ignored; after gyre trust they apply", async () => {
    await modelRunning("true");
    const clone = clonedFolder("clone");
    mkdirSync(path.join(clone, ".claude", "agents"), { recursive: true });
    const agent = "---\nname: reviewer\ndescription: Reviews changes.\n---\nReview the change.\n";
    writeFileSync(path.join(clone, ".claude", "agents", "reviewer.md"), agent);
    const untrusted = await run(clone);
    expect(untrusted.stderr).toContain(
      ignoredLine(clone, ".gyre/settings.json (permissions.allow, hooks), .claude/agents/reviewer.md (agent)"),
    );
    const offered = () => JSON.stringify(server?.requests.at(-1)?.body);
    expect(offered()).not.toContain("reviewer");
    expect((await gyre(["trust"], clone)).code).toBe(0);
    const trusted = await run(clone);
    expect(trusted.stderr).not.toContain("ignored settings");
    // The Agent tool's description lists the agents it can start.
    expect(offered()).toContain("reviewer");
  });

  it("applies the folder's settings for one run with --trust-project, recording nothing", async () => {
    await modelRunning("touch pwned");
    const clone = clonedFolder("clone");
    const outcome = await run(clone, "--trust-project");
    expect(outcome.denied).toEqual([]);
    expect(existsSync(path.join(clone, "pwned"))).toBe(true);
    expect(existsSync(path.join(clone, "hooked"))).toBe(true);
    expect(outcome.stderr).not.toContain("ignored settings");
    expect(existsSync(path.join(home, ".gyre", "trusted-folders.json"))).toBe(false);
  });

  it("with $GYRE_HOME, gyre trust records there; a folder trusted in ~/.gyre before still is until the record moves", async () => {
    const data = { GYRE_HOME: path.join(root, "data") };
    const before = clonedFolder("before");
    // Trusted when Gyre kept the record in ~/.gyre whatever GYRE_HOME said.
    expect((await gyre(["trust"], before)).code).toBe(0);
    const earlier = path.join(home, ".gyre", "trusted-folders.json");
    expect(existsSync(earlier)).toBe(true);
    expect((await gyre(["trust", "--list"], before, data)).stdout).toContain(before);

    const after = clonedFolder("after");
    expect(await gyre(["trust"], after, data)).toMatchObject({ code: 0, stdout: expect.stringContaining(after) });
    const record = JSON.parse(readFileSync(path.join(root, "data", "trusted-folders.json"), "utf8"));
    expect(record.folders.map((folder: { path: string }) => folder.path)).toEqual([before, after]);
    // Untrusting in the data folder holds, though the earlier file still names the folder.
    expect((await gyre(["untrust"], before, data)).code).toBe(0);
    expect((await gyre(["trust", "--list"], before, data)).stdout).not.toContain(before);
    expect(readFileSync(earlier, "utf8")).toContain(before);
  });

  it("refuses to trust the home folder, which would trust every repository in it", async () => {
    const outcome = await gyre(["trust"], home);
    expect(outcome.code).toBe(1);
    expect(outcome.stderr).toContain("home folder");
    expect(existsSync(path.join(home, ".gyre", "trusted-folders.json"))).toBe(false);
  });
});

/** A library run in `folder` reading its project settings, in dontAsk mode. */
async function runInFolder(folder: string, model: MockLLMServer, options: QueryOptions = {}): Promise<SDKMessage[]> {
  const messages: SDKMessage[] = [];
  for await (const message of query({
    prompt: "go",
    options: {
      cwd: folder,
      model: "anthropic/claude-sonnet-4-5",
      env: { ANTHROPIC_API_KEY: "mock", ANTHROPIC_BASE_URL: model.baseURL },
      settingSources: ["project"],
      permissionMode: "dontAsk",
      persistSession: false,
      ...options,
    },
  })) {
    messages.push(message);
  }
  return messages;
}

describe("query() with settingSources", () => {
  it("applies a project's settings in full: the library caller chose to read them", async () => {
    const model = await modelRunning("touch pwned");
    const clone = clonedFolder("clone");
    const messages = await runInFolder(clone, model);
    expect(messages.at(-1)).toMatchObject({ type: "result", permission_denials: [] });
    expect(existsSync(path.join(clone, "pwned"))).toBe(true);
    expect(existsSync(path.join(clone, "hooked"))).toBe(true);
  });

  it("with requireProjectTrust, an untrusted folder's grants do not apply and the init message lists them", async () => {
    const model = await modelRunning("touch pwned");
    const clone = clonedFolder("clone");
    const savedHome = process.env.HOME;
    process.env.HOME = home;
    let messages: SDKMessage[];
    try {
      messages = await runInFolder(clone, model, { requireProjectTrust: true });
    } finally {
      process.env.HOME = savedHome;
    }
    const init = messages.find((message) => message.type === "system" && message.subtype === "init");
    expect(init).toMatchObject({
      ignored_settings: {
        folder: realpathSync(clone),
        files: [
          { path: path.join(realpathSync(clone), ".gyre", "settings.json"), ignored: ["permissions.allow", "hooks"] },
        ],
      },
    });
    expect(existsSync(path.join(clone, "pwned"))).toBe(false);
    expect(existsSync(path.join(clone, "hooked"))).toBe(false);
  });
});
