import { existsSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { afterAll, describe, expect, it } from "vitest";
import { defineTool, type QueryOptions, type SDKMessage as Message } from "../src/index.js";
import { type MockScript, mockTurn } from "../src/testing/index.js";
import { FORMATS, runQuery, toolResults, withMock } from "./helpers.js";
import { hostGit, plantedWorkspace, plantIn } from "./planted-repositories-support.js";

// Issue 26, findings 2, 3 and 7: nothing a sandboxed command plants in the workspace runs
// when the user's git works there afterwards, and the sandbox leaves no folders of its own.

const [anthropic] = FORMATS;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
const workspace = (repository: boolean) => {
  const planted = plantedWorkspace(repository);
  made.push(planted.cwd, planted.outside);
  return planted;
};

async function sandboxed(script: MockScript, cwd: string, options: QueryOptions = {}): Promise<Message[]> {
  return withMock(script, (server) =>
    runQuery(server, anthropic, "go", {
      cwd,
      permissionMode: "bypassPermissions",
      sandbox: { enabled: true },
      ...options,
    }),
  );
}

/** A host-side tool the scripted model calls to wait for a path to appear or go (a real event, not a sleep). */
function waitUntil(cwd: string) {
  return defineTool({
    name: "wait_until",
    description: "Waits on the host until a path exists or is gone.",
    inputSchema: z.object({ path: z.string(), gone: z.boolean() }),
    execute: async ({ path, gone }) => {
      const deadline = Date.now() + 15_000;
      while (existsSync(join(cwd, path)) !== !gone) {
        if (Date.now() > deadline) return { content: `timed out: ${path}`, isError: true };
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return "ok";
    },
  });
}

/** A host-side tool that creates a file: a signal to a background command with no sandboxed command (and check) in between. */
function createFile(cwd: string) {
  return defineTool({
    name: "create_file",
    description: "Creates an empty file on the host.",
    inputSchema: z.object({ path: z.string() }),
    execute: ({ path }) => {
      writeFileSync(join(cwd, path), "");
      return "ok";
    },
  });
}

const bash = (...commands: string[]): MockScript => ({
  mode: "sequential",
  turns: [...commands.map((command) => mockTurn.toolUse("Bash", { command })), mockTurn.text("done")],
});
const texts = (messages: Message[]) => toolResults(messages).map((result) => String(result.content));
const violationTargets = (messages: Message[]) =>
  messages.flatMap((m) =>
    m.type === "system" && m.subtype === "sandbox_violation" ? m.violations.map((v) => v.target) : [],
  );

describe("sandboxed Bash: repositories planted in the workspace", () => {
  it("sets aside a repository git init made in a workspace that is none, in a subfolder, and a bare one", async () => {
    const { cwd, outside, remote } = workspace(false);
    const marker = join(outside, "pwned");
    const messages = await sandboxed(
      bash(
        `git init -q . && ${plantIn(".git", marker)} && echo ROOT`,
        `git init -q sub && ${plantIn("sub/.git", marker)} && git init -q --bare bare && ${plantIn("bare", marker)} && echo MORE`,
      ),
      cwd,
    );
    const [root, more] = texts(messages);
    expect(root).toContain("ROOT");
    expect(root).toContain(
      `${cwd}/.git, a repository created by a sandboxed command, was set aside (.git renamed to .git-sandboxed)`,
    );
    expect(more).toContain("MORE");
    expect(violationTargets(messages).sort()).toEqual(
      [join(cwd, ".git"), join(cwd, "bare/HEAD"), join(cwd, "sub/.git")].sort(),
    );
    for (const dir of [cwd, join(cwd, "sub"), join(cwd, "bare")]) hostGit(dir, remote);
    expect(existsSync(marker)).toBe(false);
    // What was prevented: put back, the host's git runs the planted code.
    renameSync(join(cwd, ".git-sandboxed"), join(cwd, ".git"));
    hostGit(cwd, remote);
    expect(existsSync(marker)).toBe(true);
  });

  it("keeps what git init and git clone make, and sets it aside once a later command plants code in it", async () => {
    const { cwd, outside, remote, git } = workspace(false);
    const marker = join(outside, "pwned");
    const commit = "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m x";
    const messages = await sandboxed(
      bash(
        `git init -q . && git config user.name t && ${commit} && git init -q --bare store.git && echo INIT`,
        `git log --format=%s && echo LOGGED`,
        `git config core.pager 'touch ${marker}' && echo PLANTED`,
      ),
      cwd,
    );
    const [init, logged, planted] = texts(messages);
    expect(init).toContain("INIT");
    expect(init).not.toContain("sandbox");
    expect(logged).toContain("x\nLOGGED");
    expect(planted).toContain("its config sets core.pager, which the host's git could run");
    expect(violationTargets(messages)).toEqual([join(cwd, ".git")]);
    expect(existsSync(join(cwd, "store.git/HEAD"))).toBe(true);
    hostGit(cwd, remote);
    expect(existsSync(marker)).toBe(false);
    expect(git("config --get core.pager", join(cwd, ".git-sandboxed"))).toBe(`touch ${marker}\n`);
  });

  it("removes a dangling .git/commondir link and catches a background command's plant when it ends (finding 3)", async () => {
    const { cwd, outside, remote } = workspace(true);
    const marker = join(outside, "pwned");
    const copy = `cp -r .git/objects .git/refs .git/HEAD e/ && printf '[core]\\n\\tfsmonitor = touch ${marker}; false\\n' > e/config`;
    // The background command waits for `go`, then plants again: a bare repository and the link's target.
    const background =
      "until [ -e go ]; do sleep 0.02; done; mkdir f && cp -r .git/objects .git/refs .git/HEAD f/ && " +
      `printf '[core]\\n\\tfsmonitor = touch ${marker}; false\\n' > f/config && echo ../f > cd.txt && touch planted`;
    const script: MockScript = {
      mode: "sequential",
      turns: [
        mockTurn.toolUse("Bash", { command: `mkdir e && ${copy} && ln -s ../cd.txt .git/commondir && echo LINKED` }),
        mockTurn.toolUse("Bash", { command: background, run_in_background: true }),
        // On the host: no sandboxed command ends (and checks) between this and the background command's end.
        mockTurn.toolUse("create_file", { path: "go" }),
        // Set aside as the background command ends, with no other call in between.
        mockTurn.toolUse("wait_until", { path: "f/HEAD.sandboxed", gone: false }),
        mockTurn.toolUse("BashOutput", { bash_id: "bash_1" }),
        mockTurn.text("done"),
      ],
    };
    const messages = await sandboxed(script, cwd, {
      tools: ["Bash", "BashOutput", waitUntil(cwd), createFile(cwd)],
    });
    const [linked, , , waited, output] = texts(messages);
    expect(linked).toContain(`creating ${join(cwd, ".git/commondir")} denied by the sandbox`);
    expect(waited).toBe("ok");
    expect(existsSync(join(cwd, "planted"))).toBe(true);
    expect(output).toContain(
      `${cwd}/f, a bare repository created by a sandboxed command, was set aside (HEAD renamed to HEAD.sandboxed)`,
    );
    expect(violationTargets(messages)).toEqual([join(cwd, ".git/commondir"), join(cwd, "e/HEAD"), join(cwd, "f/HEAD")]);
    for (const dir of [cwd, join(cwd, "e"), join(cwd, "f")]) hostGit(dir, remote);
    expect(existsSync(marker)).toBe(false);
  });

  it("leaves no folder of its own behind, and keeps them while a background command runs (finding 7)", async () => {
    const { cwd } = workspace(true);
    const before = [...readdirSync(cwd), ...readdirSync(join(cwd, ".git"))];
    // Once a foreground command has ended, the background one tries to write where the mounts are.
    const background =
      "until [ -e go ]; do sleep 0.02; done; touch .claude/x .gyre/x .git/modules/x .git/worktrees/x; touch bg-done";
    const script: MockScript = {
      mode: "sequential",
      turns: [
        mockTurn.toolUse("Bash", { command: background, run_in_background: true }),
        mockTurn.toolUse("Bash", { command: "ls -A; ls -A .git" }),
        mockTurn.toolUse("Bash", { command: "touch go" }),
        mockTurn.toolUse("wait_until", { path: "bg-done", gone: false }),
        mockTurn.toolUse("wait_until", { path: ".claude", gone: true }),
        mockTurn.text("done"),
      ],
    };
    const messages = await sandboxed(script, cwd, { tools: ["Bash", "BashOutput", waitUntil(cwd)] });
    const [, listed, , done, gone] = texts(messages);
    expect(listed).toMatch(/^\.claude$/m);
    expect(listed).toMatch(/^modules$/m);
    expect([done, gone]).toEqual(["ok", "ok"]);
    const after = [...readdirSync(cwd), ...readdirSync(join(cwd, ".git"))];
    expect(after.sort()).toEqual([...before, "bg-done", "go"].sort());
  });

  it("removes the mount points as soon as no command runs, before the run ends", async () => {
    const { cwd } = workspace(false);
    const script: MockScript = {
      mode: "sequential",
      turns: [
        mockTurn.toolUse("Bash", { command: "ls -A" }),
        mockTurn.toolUse("wait_until", { path: ".claude", gone: true }),
        mockTurn.text("done"),
      ],
    };
    const messages = await sandboxed(script, cwd, { tools: ["Bash", "BashOutput", waitUntil(cwd)] });
    const [listed, gone] = texts(messages);
    expect(listed).toContain(".claude");
    expect(gone).toBe("ok");
    expect(readdirSync(cwd)).toEqual([]);
  });
});
