import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultTools, type SDKMessage } from "../src/index.js";
import { type MockScript, mockTurn } from "../src/testing/index.js";
import { ownerOf } from "../src/tools/builtin/bash/spill-owner.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

// Regression tests for issue 8, items 5, 10 and 11: what the Bash tool leaves behind on disk
// and in the process table, and what of Gyre's own secrets its commands can see.

const [anthropic] = FORMATS;
const MiB = 1024 * 1024;
const SPILL_ROOT = join(tmpdir(), "gyre-bash");

/** Every test tags its commands' environment, so /proc tells which processes are its own. */
let tag = "";
afterEach(() => killTagged(tag));

/** Tools whose commands carry this test's tag (plus any other Bash options). */
function taggedTools(cwd: string, bash: Parameters<typeof defaultTools>[0]["bash"] = {}) {
  tag = randomUUID();
  return defaultTools({ cwd, bash: { ...bash, env: { GUARD_BASH_TAG: tag, ...bash.env } } });
}

/** Live (non-zombie) processes whose environment carries `tag`, read straight from /proc. */
function tagged(value: string): number[] {
  if (!value) return [];
  const needle = Buffer.from(`GUARD_BASH_TAG=${value}\0`);
  const pids: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (stat[stat.lastIndexOf(")") + 2] === "Z") continue;
      if (readFileSync(`/proc/${entry}/environ`).includes(needle)) pids.push(Number(entry));
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  return pids;
}

/** Safety net for a failing run: freeze and kill whatever a test left, so a fork bomb cannot linger. */
function killTagged(value: string): void {
  for (let round = 0; round < 50; round += 1) {
    const pids = tagged(value);
    if (pids.length === 0) return;
    for (const signal of ["SIGSTOP", "SIGKILL"] as const) {
      for (const pid of pids) {
        try {
          process.kill(pid, signal);
        } catch {
          // Already gone.
        }
      }
    }
  }
}

async function waitFor<T>(check: () => T | undefined | false, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function workspace(): string {
  const cwd = mkdtempSync(join(tmpdir(), "gyre-guard-bash-"));
  // Readable by everyone: the fork bomb runs as an unprivileged user when the tests run as root.
  chmodSync(cwd, 0o755);
  return cwd;
}

const bashCall = (input: { command: string; timeout?: number }): MockScript => ({
  turns: [mockTurn.toolUse("Bash", input), mockTurn.text("done")],
});

const textOf = (messages: SDKMessage[]) => String(toolResults(messages)[0]?.content);

describe("Bash output files (item 10)", () => {
  it("keeps a 1 GB output's file at the 64 MiB cap during the run, with memory flat, and removes it after", async () => {
    const cwd = workspace();
    let largest = 0;
    let rssPeak = 0;
    const rssBefore = process.memoryUsage().rss;
    const sample = setInterval(() => {
      for (const file of ownSpillFiles())
        largest = Math.max(largest, statSync(file, { throwIfNoEntry: false })?.size ?? 0);
      rssPeak = Math.max(rssPeak, process.memoryUsage().rss);
    }, 50);
    const messages = await withMock(
      bashCall({ command: "head -c 1G /dev/zero | tr '\\0' a", timeout: 600_000 }),
      (server) =>
        runQuery(server, anthropic, "go", { cwd, tools: taggedTools(cwd), permissionMode: "bypassPermissions" }),
    ).finally(() => clearInterval(sample));

    const text = textOf(messages);
    const note = text.match(
      /the output was (\d+) bytes, too long to keep whole: (\S+) has its first (\d+) and last (\d+) bytes \((\d+) bytes cut\)/,
    );
    expect(note, text.slice(14_000, 14_600)).not.toBeNull();
    const [, total, path, head, tail, cut] = note!;
    expect(Number(total)).toBe(1024 * MiB);
    expect(Number(head) + Number(tail) + Number(cut)).toBe(1024 * MiB);
    expect(Number(head) + Number(tail)).toBeLessThanOrEqual(64 * MiB);
    // The sampler saw the file reach the cap and never pass it.
    expect(largest).toBe(64 * MiB);
    expect(rssPeak - rssBefore).toBeLessThan(300 * MiB);
    expect(existsSync(path!)).toBe(false);
    expect(existsSync(dirname(path!))).toBe(false);
    expect(resultOf(messages).subtype).toBe("success");
  }, 180_000);

  it("removes stale output directories of dead processes at start, never a live process's", async () => {
    const cwd = workspace();
    mkdirSync(SPILL_ROOT, { recursive: true });
    const live = spawn("sleep", ["1000"], { stdio: "ignore" });
    const deadPid = Number(spawnSync("/bin/sh", ["-c", "echo $$"], { encoding: "utf8" }).stdout.trim());
    const dead = staleDirectory(`guard-dead-${randomUUID()}`, { ...ownerOf(), pid: deadPid });
    const alive = staleDirectory(`guard-live-${randomUUID()}`, ownerOf(live.pid!));
    try {
      const messages = await withMock(bashCall({ command: "echo hi" }), (server) =>
        runQuery(server, anthropic, "go", { cwd, tools: taggedTools(cwd), permissionMode: "bypassPermissions" }),
      );
      expect(textOf(messages)).toBe("hi");
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(join(alive, "toolu_old.log"))).toBe(true);
    } finally {
      live.kill("SIGKILL");
      spawnSync("rm", ["-rf", alive, dead]);
    }
  });
});

/** Spill files of this process's sessions (their directories' owner record names this pid). */
function ownSpillFiles(): string[] {
  const files: string[] = [];
  for (const name of existsSync(SPILL_ROOT) ? readdirSync(SPILL_ROOT) : []) {
    const directory = join(SPILL_ROOT, name);
    try {
      if (JSON.parse(readFileSync(join(directory, "owner.json"), "utf8")).pid !== process.pid) continue;
      for (const file of readdirSync(directory)) if (file.endsWith(".log")) files.push(join(directory, file));
    } catch {
      // Not a session directory of ours, or removed meanwhile.
    }
  }
  return files;
}

function staleDirectory(name: string, owner: object): string {
  const directory = join(SPILL_ROOT, name);
  mkdirSync(directory);
  writeFileSync(join(directory, "owner.json"), JSON.stringify(owner));
  writeFileSync(join(directory, "toolu_old.log"), "x".repeat(1024));
  return directory;
}

/**
 * A fork bomb under `ulimit -u`: every process starts two more, each in a new session (out of
 * the process group), and exits, so no list of pids stays true for long. Beside it a `setsid`
 * child and a `sleep` the shell waits for. RLIMIT_NPROC does not bind root: as root it runs as nobody.
 */
function forkBomb(): string {
  const script =
    "ulimit -u 40; setsid sleep 1000 > /dev/null 2>&1 & sleep 1000 & " +
    "bomb() { setsid bash -c bomb & setsid bash -c bomb & }; export -f bomb; bomb; wait";
  const asNobody = process.getuid?.() === 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups -- " : "";
  return `${asNobody}/bin/bash -c '${script}' 2>/dev/null`;
}

describe.runIf(process.platform === "linux")("every process a Bash call started dies with it (item 11)", () => {
  it("stops a fork bomb that leaves its process group, and a setsid child, when the call times out", async () => {
    const cwd = workspace();
    const seen = new Set<number>();
    const sample = setInterval(() => tagged(tag).forEach((pid) => seen.add(pid)), 50);
    const messages = await withMock(bashCall({ command: forkBomb(), timeout: 3_000 }), (server) =>
      runQuery(server, anthropic, "go", {
        cwd,
        tools: taggedTools(cwd, { killGraceMs: 200 }),
        permissionMode: "bypassPermissions",
      }),
    ).finally(() => clearInterval(sample));
    expect(tagged(tag)).toEqual([]);
    // It was a real fork bomb (it runs into its limit of 40 processes; a loaded machine samples fewer).
    expect(seen.size).toBeGreaterThanOrEqual(10);
    expect(textOf(messages)).toBe("Command timed out after 3s; it and every process it started were killed.");
  }, 60_000);

  it("stops what a command that exits normally left running (setsid, nohup, a double fork)", async () => {
    const cwd = workspace();
    const command =
      "(setsid sleep 1000 > /dev/null 2>&1 &); nohup sleep 1000 > /dev/null 2>&1 & " +
      "setsid sleep 1000 > /dev/null 2>&1 & echo started";
    const messages = await withMock(bashCall({ command }), (server) =>
      runQuery(server, anthropic, "go", { cwd, tools: taggedTools(cwd), permissionMode: "bypassPermissions" }),
    );
    expect(tagged(tag)).toEqual([]);
    expect(textOf(messages)).toBe(
      "started\nNote: 3 processes this command left running were stopped when it exited. " +
        "Use run_in_background for long-running processes.",
    );
  });

  it("stops a process that escaped the group and the process tree when the call times out", async () => {
    const cwd = workspace();
    const messages = await withMock(
      bashCall({ command: "(setsid sleep 1000 > /dev/null 2>&1 &); sleep 1000", timeout: 1_000 }),
      (server) =>
        runQuery(server, anthropic, "go", { cwd, tools: taggedTools(cwd), permissionMode: "bypassPermissions" }),
    );
    expect(tagged(tag)).toEqual([]);
    expect(textOf(messages)).toBe("Command timed out after 1s; it and every process it started were killed.");
  });

  it("has stopped every process of a call aborted mid-command by the time the run returns", async () => {
    const cwd = workspace();
    const abortController = new AbortController();
    const messages = await withMock(
      bashCall({ command: "(setsid sleep 1000 > /dev/null 2>&1 &); sleep 1000" }),
      async (server) => {
        const run = runQuery(server, anthropic, "go", {
          cwd,
          tools: taggedTools(cwd),
          permissionMode: "bypassPermissions",
          abortController,
        });
        // The escaped sleep and the shell's (bash may exec its last command in place of itself).
        await waitFor(() => tagged(tag).length >= 2, "the command to start");
        abortController.abort();
        return run;
      },
    );
    expect(tagged(tag)).toEqual([]);
    expect(resultOf(messages).type).toBe("result");
  });
});

describe.each(FORMATS)("provider keys stay out of Bash commands (item 5) over $name", (format) => {
  const secrets = {
    ANTHROPIC_API_KEY: `sk-ant-guard-${randomUUID()}`,
    OPENAI_API_KEY: `sk-openai-guard-${randomUUID()}`,
  };
  const command = 'echo "anthropic=$ANTHROPIC_API_KEY openai=$OPENAI_API_KEY"';

  async function runWithKeys(passEnv?: string[]) {
    const saved = { ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY, OPENAI_API_KEY: process.env.OPENAI_API_KEY };
    Object.assign(process.env, secrets);
    try {
      const cwd = workspace();
      return await withMock(bashCall({ command }), async (server) => {
        const messages = await runQuery(server, format, "go", {
          cwd,
          tools: taggedTools(cwd, { passEnv }),
          permissionMode: "bypassPermissions",
        });
        return { messages, requests: JSON.stringify(server.requests.map((request) => request.body)) };
      });
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }

  it("does not let a command print Gyre's API keys to the model", async () => {
    const { messages, requests } = await runWithKeys();
    expect(textOf(messages)).toBe("anthropic= openai=");
    for (const secret of Object.values(secrets)) expect(requests).not.toContain(secret);
  });

  it("passes a key listed in passEnv, and only that one", async () => {
    const { messages } = await runWithKeys(["ANTHROPIC_API_KEY"]);
    expect(textOf(messages)).toBe(`anthropic=${secrets.ANTHROPIC_API_KEY} openai=`);
  });
});

describe("provider keys through the query options (item 5)", () => {
  it("the built-in Bash withholds configured providers' keys; passEnv lets one through", async () => {
    const secrets = { ANTHROPIC_API_KEY: `sk-ant-${randomUUID()}`, ACME_KEY: `sk-acme-${randomUUID()}` };
    const saved = { ANTHROPIC_API_KEY: process.env.ANTHROPIC_API_KEY, ACME_KEY: process.env.ACME_KEY };
    Object.assign(process.env, secrets);
    const run = (passEnv?: string[]) =>
      withMock(bashCall({ command: 'echo "a=$ANTHROPIC_API_KEY acme=$ACME_KEY"' }), (server) =>
        runQuery(server, FORMATS[0], "go", {
          cwd: workspace(),
          tools: ["Bash"],
          permissionMode: "bypassPermissions",
          providers: { acme: { type: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "ACME_KEY" } },
          ...(passEnv && { passEnv }),
        }),
      );
    try {
      expect(textOf(await run())).toBe("a= acme=");
      expect(textOf(await run(["ACME_KEY"]))).toBe(`a= acme=${secrets.ACME_KEY}`);
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });
});
