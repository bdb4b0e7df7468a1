import { chmodSync, existsSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HookRunner } from "./runner.js";

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), "gyre-hooks-")));
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Write an executable script into the temp project and return its path. */
function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  chmodSync(path, 0o755);
  return path;
}

function runnerFor(event: string, commands: Array<string | { command: string; timeout?: number }>, matcher?: string) {
  const hooks = commands.map((entry) =>
    typeof entry === "string" ? { type: "command", command: entry } : { type: "command", ...entry },
  );
  return new HookRunner({
    cwd: dir,
    sessionId: "sess-1",
    transcriptPath: join(dir, "t.jsonl"),
    settings: { hooks: { [event]: [{ matcher, hooks }] } },
  });
}

const bashCall = (command: string) => ({
  tool_name: "Bash",
  tool_input: { command, description: 'run — with ünïcode "quotes"\nand a newline' },
  tool_use_id: "toolu_1",
});

/** Resolves once a process is gone (or a zombie awaiting its reaper). */
async function processGone(pid: number): Promise<void> {
  for (;;) {
    let state: string | undefined;
    try {
      state = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    } catch {
      return;
    }
    if (state === "Z" || state === "X") return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe("HookRunner with settings command hooks", () => {
  it("sends the input as JSON on stdin, intact", async () => {
    const out = join(dir, "stdin.json");
    const runner = runnerFor("PreToolUse", [`cat > ${JSON.stringify(out)}`], "Bash");
    const outcome = await runner.run("PreToolUse", bashCall("echo hi"));
    expect(outcome.errors).toEqual([]);
    expect(JSON.parse(readFileSync(out, "utf8"))).toEqual({
      session_id: "sess-1",
      transcript_path: join(dir, "t.jsonl"),
      cwd: dir,
      hook_event_name: "PreToolUse",
      ...bashCall("echo hi"),
    });
  });

  it("runs in the project dir with CLAUDE_PROJECT_DIR and GYRE_PROJECT_DIR set", async () => {
    const hook = script(
      "env.sh",
      `#!/bin/sh\nnode -e 'console.log(JSON.stringify({systemMessage: [process.cwd(), process.env.CLAUDE_PROJECT_DIR, process.env.GYRE_PROJECT_DIR].join("|")}))'\n`,
    );
    const outcome = await runnerFor("SessionStart", [hook]).run("SessionStart", { source: "startup" });
    expect(outcome.systemMessages).toEqual([`${dir}|${dir}|${dir}`]);
  });

  it("honours JSON stdout on exit 0", async () => {
    const json = JSON.stringify({
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "touches prod",
        updatedInput: { command: "echo safe" },
      },
    });
    const hook = script("ask.sh", `#!/bin/sh\ncat > /dev/null\necho '${json}'\n`);
    const outcome = await runnerFor("PreToolUse", [hook]).run("PreToolUse", bashCall("deploy"));
    expect(outcome).toMatchObject({
      permissionDecision: "ask",
      permissionDecisionReason: "touches prod",
      updatedInput: { command: "echo safe" },
      errors: [],
    });
  });

  it("adds plain stdout as context for UserPromptSubmit", async () => {
    const outcome = await runnerFor("UserPromptSubmit", ["echo 'Current branch: main'"]).run("UserPromptSubmit", {
      prompt: "what branch?",
    });
    expect(outcome.additionalContext).toEqual(["Current branch: main"]);
  });

  it("denies a PreToolUse call on exit 2 with stderr as the reason", async () => {
    const hook = script("deny.sh", `#!/bin/sh\necho "rm is not allowed" >&2\nexit 2\n`);
    const outcome = await runnerFor("PreToolUse", [hook]).run("PreToolUse", bashCall("rm x"));
    expect(outcome).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: "rm is not allowed",
      errors: [],
    });
  });

  it("blocks stopping on exit 2 from a Stop hook, and blocks a prompt from UserPromptSubmit", async () => {
    const hook = script("stop.sh", `#!/bin/sh\necho "tests still fail" >&2\nexit 2\n`);
    expect((await runnerFor("Stop", [hook]).run("Stop", { stop_hook_active: false })).block).toEqual({
      reason: "tests still fail",
    });
    expect((await runnerFor("UserPromptSubmit", [hook]).run("UserPromptSubmit", { prompt: "x" })).block).toEqual({
      reason: "tests still fail",
    });
  });

  it("shows stderr to the model on exit 2 from PostToolUse", async () => {
    const hook = script("post.sh", `#!/bin/sh\necho "lint: 3 errors" >&2\nexit 2\n`);
    const outcome = await runnerFor("PostToolUse", [hook]).run("PostToolUse", {
      ...bashCall("edit"),
      tool_response: { stdout: "" },
    });
    expect(outcome.block).toEqual({ reason: "lint: 3 errors" });
  });

  it("denies a PreToolUse call when the hook exits with a code other than 0 or 2", async () => {
    const hook = script("fail.sh", `#!/bin/sh\necho "jq: not found" >&2\nexit 1\n`);
    const outcome = await runnerFor("PreToolUse", [hook]).run("PreToolUse", bashCall("ls"));
    expect(outcome.permissionDecision).toBe("deny");
    expect(outcome.permissionDecisionReason).toContain(`PreToolUse hook ${JSON.stringify(hook)} failed`);
    expect(outcome.permissionDecisionReason).toContain("jq: not found");
    expect(outcome.continue).toBe(true);
    expect(outcome.errors).toEqual([
      expect.objectContaining({ hook, kind: "exit_code", exitCode: 1, stderr: "jq: not found" }),
    ]);
  });

  it("denies when stdout starts like JSON but does not parse", async () => {
    const outcome = await runnerFor("PreToolUse", [`echo '{"permissionDecision": '`]).run("PreToolUse", bashCall("ls"));
    expect(outcome.errors).toEqual([expect.objectContaining({ kind: "invalid_output" })]);
    expect(outcome.permissionDecision).toBe("deny");
  });

  it("reads a deny far larger than 1 MiB completely", async () => {
    const reason = "r".repeat(3 * 1024 * 1024);
    const hook = script(
      "big.mjs",
      `#!/usr/bin/env node\nprocess.stdout.write(JSON.stringify({hookSpecificOutput:{hookEventName:"PreToolUse",permissionDecision:"deny",permissionDecisionReason:"r".repeat(${reason.length})}}));\n`,
    );
    const outcome = await runnerFor("PreToolUse", [hook]).run("PreToolUse", bashCall("ls"));
    expect(outcome.errors).toEqual([]);
    expect(outcome.permissionDecision).toBe("deny");
    expect(outcome.permissionDecisionReason).toBe(reason);
  });

  it("lets plain text on exit 0 decide nothing, as in Claude Code", async () => {
    const outcome = await runnerFor("PreToolUse", ["echo 'checked: fine'"]).run("PreToolUse", bashCall("ls"));
    expect(outcome.errors).toEqual([]);
    expect(outcome.permissionDecision).toBeUndefined();
  });

  it("reports a hook that crashes", async () => {
    const crash = script("crash.mjs", `#!/usr/bin/env node\nthrow new Error("boom in hook");\n`);
    // The hook command kills the very shell that runs it, so it ends by a signal whichever
    // shell runs hooks and whether or not that shell execs a script.
    const killed = "kill -9 $$";
    const outcome = await runnerFor("PostToolUse", [crash, killed]).run("PostToolUse", {
      ...bashCall("ls"),
      tool_response: "ok",
    });
    expect(outcome.errors).toEqual([
      expect.objectContaining({
        hook: crash,
        kind: "exit_code",
        stderr: expect.stringContaining("boom in hook"),
      }),
      expect.objectContaining({
        hook: killed,
        kind: "exit_code",
        message: expect.stringContaining("signal"),
      }),
    ]);
  });

  it("reports a command that cannot start", async () => {
    const outcome = await runnerFor("Stop", ["./does-not-exist.sh"]).run("Stop", { stop_hook_active: false });
    expect(outcome.block).toBeUndefined();
    expect(outcome.continue).toBe(false);
    expect(outcome.errors).toEqual([expect.objectContaining({ kind: "exit_code", exitCode: 127 })]);
  });

  it("kills the whole process group of a hook that times out", async () => {
    const pidFile = join(dir, "sleep.pid");
    const hook = script("slow.sh", `#!/bin/sh\nsleep 100 &\necho $! > ${JSON.stringify(pidFile)}\nwait\n`);
    const outcome = await runnerFor("PreToolUse", [{ command: hook, timeout: 0.5 }]).run("PreToolUse", bashCall("ls"));
    expect(outcome.errors).toEqual([expect.objectContaining({ hook, kind: "timeout" })]);
    expect(outcome.permissionDecision).toBe("deny");
    const sleepPid = Number(readFileSync(pidFile, "utf8"));
    await processGone(sleepPid);
  });

  it("kills a running hook when the run is aborted", async () => {
    const started = join(dir, "started");
    const controller = new AbortController();
    const hook = script("long.sh", `#!/bin/sh\ntouch ${JSON.stringify(started)}\nexec sleep 100\n`);
    const pending = runnerFor("Stop", [hook]).run("Stop", { stop_hook_active: false }, { signal: controller.signal });
    while (!existsSync(started)) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const outcome = await pending;
    expect(outcome.errors).toEqual([expect.objectContaining({ kind: "aborted" })]);
  });

  it("runs matching hooks in parallel and combines them: deny wins, context concatenated", async () => {
    const flag = join(dir, "second-ran");
    // The first hook waits for the second; run in order it would time out.
    const first = script(
      "first.sh",
      `#!/bin/sh\nwhile [ ! -f ${JSON.stringify(flag)} ]; do sleep 0.01; done\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","additionalContext":"first"}}'\n`,
    );
    const second = script(
      "second.sh",
      `#!/bin/sh\ntouch ${JSON.stringify(flag)}\necho '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"second says no","additionalContext":"second"}}'\n`,
    );
    const outcome = await runnerFor("PreToolUse", [{ command: first, timeout: 20 }, second]).run(
      "PreToolUse",
      bashCall("ls"),
    );
    expect(outcome).toMatchObject({
      hookCount: 2,
      permissionDecision: "deny",
      permissionDecisionReason: "second says no",
      additionalContext: ["first", "second"],
      errors: [],
    });
  });

  it("runs an identical command listed under two matchers once", async () => {
    const log = join(dir, "runs.log");
    const command = `echo ran >> ${JSON.stringify(log)}`;
    const runner = new HookRunner({
      cwd: dir,
      sessionId: "s",
      settings: {
        PreToolUse: [
          { matcher: "Bash", hooks: [{ type: "command", command }] },
          { matcher: "*", hooks: [{ type: "command", command }] },
        ],
      },
    });
    const outcome = await runner.run("PreToolUse", bashCall("ls"));
    expect(outcome.hookCount).toBe(1);
    expect(readFileSync(log, "utf8")).toBe("ran\n");
  });

  it("runs callbacks and settings commands together", async () => {
    const runner = new HookRunner({
      cwd: dir,
      sessionId: "s",
      callbacks: { Stop: [{ hooks: [async () => ({ systemMessage: "from callback" })] }] },
      settings: {
        Stop: [{ hooks: [{ type: "command", command: `echo '{"systemMessage":"from command"}'` }] }],
      },
    });
    const outcome = await runner.run("Stop", { stop_hook_active: true });
    expect(outcome.systemMessages).toEqual(["from callback", "from command"]);
  });

  it("runs a Claude Code style script that reads .tool_input.command", async () => {
    const hasJq = existsSync("/usr/bin/jq") || existsSync("/usr/local/bin/jq") || existsSync("/bin/jq");
    const read = hasJq
      ? `command=$(jq -r '.tool_input.command')`
      : `command=$(node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).tool_input.command))')`;
    const hook = script(
      "block-rm.sh",
      `#!/bin/bash\n${read}\nif echo "$command" | grep -q 'rm -rf'; then\n  echo "Blocked: $command" >&2\n  exit 2\nfi\nexit 0\n`,
    );
    const runner = new HookRunner({
      cwd: dir,
      sessionId: "s",
      settings: {
        hooks: {
          PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: '"$CLAUDE_PROJECT_DIR"/block-rm.sh' }] }],
        },
      },
    });
    expect(hook).toBe(join(dir, "block-rm.sh"));
    const blocked = await runner.run("PreToolUse", bashCall("rm -rf /"));
    expect(blocked).toMatchObject({
      permissionDecision: "deny",
      permissionDecisionReason: "Blocked: rm -rf /",
    });
    const allowed = await runner.run("PreToolUse", bashCall("ls -la"));
    expect(allowed.permissionDecision).toBeUndefined();
    expect(allowed.errors).toEqual([]);
    const otherTool = await runner.run("PreToolUse", { ...bashCall("rm -rf /"), tool_name: "Write" });
    expect(otherTool.hookCount).toBe(0);
  });
});
