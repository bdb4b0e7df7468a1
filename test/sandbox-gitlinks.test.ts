import { execSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type QueryOptions, SDKMessage, type SDKMessage as Message } from "../src/index.js";
import { type MockScript, mockTurn } from "../src/testing/index.js";
import { FORMATS, resultOf, runQuery, toolResults, withMock } from "./helpers.js";

// Issue 15: a repository a sandboxed command creates at a submodule path (a gitlink of the
// workspace's index) would have the host's git run its config; it is set aside and reported.

const [anthropic] = FORMATS;
const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

/** A repository with one commit as the workspace, and a folder outside it for the marker the planted config would touch. */
function workspace(): { cwd: string; marker: string; git: (args: string, dir?: string) => string } {
  const cwd = mkdtempSync(join(tmpdir(), "gyre-gitlink-ws-"));
  const outside = mkdtempSync("/var/tmp/gyre-gitlink-out-");
  made.push(cwd, outside);
  const git = (args: string, dir = cwd) =>
    execSync(`git -c user.name=t -c user.email=t@t ${args}`, { cwd: dir, stdio: "pipe", encoding: "utf8" });
  git("init -q");
  writeFileSync(join(cwd, "a.txt"), "a");
  git("add a.txt");
  git("commit -qm first");
  return { cwd, marker: join(outside, "pwned"), git };
}

/** `git init` at `dir` with a commit (so that `git add` records a gitlink) and an fsmonitor that touches `marker`. */
const plant = (dir: string, marker: string) =>
  `git init -q ${dir} && git -C ${dir} -c user.name=t -c user.email=t@t commit -q --allow-empty -m x && ` +
  `git -C ${dir} config core.fsmonitor 'touch ${marker}'`;

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

const bash = (...commands: string[]): MockScript => ({
  mode: "sequential",
  turns: [...commands.map((command) => mockTurn.toolUse("Bash", { command })), mockTurn.text("done")],
});
const texts = (messages: Message[]) => toolResults(messages).map((result) => String(result.content));
const violations = (messages: Message[]) =>
  messages.flatMap((m) => (m.type === "system" && m.subtype === "sandbox_violation" ? [m] : []));

describe("sandboxed Bash: repositories at submodule paths", () => {
  it("sets aside a repository a command creates and adds as a gitlink: the host's git status runs nothing", async () => {
    const { cwd, marker, git } = workspace();
    const messages = await sandboxed(bash(`${plant("vendor/new", marker)} && git add vendor/new && echo ADDED`), cwd);
    const [text] = texts(messages);
    expect(text).toContain("ADDED");
    expect(git("ls-files --stage vendor/new")).toMatch(/^160000 /);
    expect(existsSync(join(cwd, "vendor/new/.git"))).toBe(false);
    expect(readFileSync(join(cwd, "vendor/new/.git-sandboxed/config"), "utf8")).toContain(`touch ${marker}`);
    git("status");
    expect(existsSync(marker)).toBe(false);
    const message =
      "vendor/new/.git, a repository created by a sandboxed command at a submodule path of the repository in " +
      `${cwd}, was renamed to vendor/new/.git-sandboxed: the host's git would enter it and run its config ` +
      "(core.fsmonitor, hooks). Run the command with dangerouslyDisableSandbox if the repository is wanted.";
    expect(text).toContain(message);
    const [violation] = violations(messages);
    expect(SDKMessage.safeParse(violation).success).toBe(true);
    expect(violation?.tool_use_id).toBe(toolResults(messages)[0]?.tool_use_id);
    expect(violation?.violations).toEqual([{ kind: "write", target: join(cwd, "vendor/new/.git"), message }]);
    expect(resultOf(messages).subtype).toBe("success");
    // What was prevented: put back, the host's git status runs the planted command.
    renameSync(join(cwd, "vendor/new/.git-sandboxed"), join(cwd, "vendor/new/.git"));
    git("status");
    expect(existsSync(marker)).toBe(true);
  });

  it("sets aside a .git file naming another folder, made in an uninitialised submodule's empty folder (no index change)", async () => {
    const { cwd, marker, git } = workspace();
    const head = git("rev-parse HEAD").trim();
    git(`update-index --add --cacheinfo 160000,${head},vendor/sub`);
    git("commit -qm submodule");
    mkdirSync(join(cwd, "vendor/sub"), { recursive: true });
    const messages = await sandboxed(
      bash(`${plant(".stash/evil", marker)} && echo "gitdir: $PWD/.stash/evil/.git" > vendor/sub/.git && echo PLANTED`),
      cwd,
    );
    const [text] = texts(messages);
    expect(text).toContain("PLANTED");
    expect(existsSync(join(cwd, "vendor/sub/.git"))).toBe(false);
    expect(readFileSync(join(cwd, "vendor/sub/.git-sandboxed"), "utf8")).toBe(`gitdir: ${cwd}/.stash/evil/.git\n`);
    expect(text).toContain("vendor/sub/.git, a repository created by a sandboxed command at a submodule path");
    // The repository it names, planted elsewhere in the workspace, is set aside too (planted-repositories.ts).
    expect(violations(messages)[0]?.violations.map((v) => v.target)).toEqual([
      join(cwd, "vendor/sub/.git"),
      join(cwd, ".stash/evil/.git"),
    ]);
    git("status");
    expect(existsSync(marker)).toBe(false);
    renameSync(join(cwd, "vendor/sub/.git-sandboxed"), join(cwd, "vendor/sub/.git"));
    renameSync(join(cwd, ".stash/evil/.git-sandboxed"), join(cwd, ".stash/evil/.git"));
    git("status");
    expect(existsSync(marker)).toBe(true);
  });

  it("catches, when the run closes, one a background command makes after the last foreground command", async () => {
    const { cwd, marker, git } = workspace();
    // After planting it puts a .git back whenever it is gone: the check must come after the shell is stopped.
    const background =
      `sleep 0.5; ${plant("vendor/new", marker)} && git add vendor/new && touch planted; ` +
      "while :; do [ -e vendor/new/.git ] || mkdir vendor/new/.git; sleep 0.01; done";
    const script: MockScript = {
      mode: "sequential",
      turns: [
        mockTurn.toolUse("Bash", { command: background, run_in_background: true }),
        mockTurn.toolUse("Bash", { command: "echo foreground" }),
        // The run ends once the background command has planted its repository.
        { ...mockTurn.text("done"), delayMs: 2_500 },
      ],
    };
    const messages = await sandboxed(script, cwd);
    expect(existsSync(join(cwd, "planted"))).toBe(true);
    expect(texts(messages)[1]).not.toContain("sandbox");
    // Nothing during the run: the check that catches it is the one as the run closes, reported after the result.
    const [closing, ...others] = violations(messages);
    expect(others).toEqual([]);
    expect(closing?.tool_use_id).toBeNull();
    expect(closing?.violations.map((violation) => violation.target)).toEqual([join(cwd, "vendor/new/.git")]);
    expect(messages.at(-1)).toBe(closing);
    expect(messages.findIndex((message) => message.type === "result")).toBeLessThan(messages.indexOf(closing!));
    expect(existsSync(join(cwd, "vendor/new/.git"))).toBe(false);
    expect(statSync(join(cwd, "vendor/new/.git-sandboxed")).isDirectory()).toBe(true);
    git("status");
    expect(existsSync(marker)).toBe(false);
  });

  it("leaves alone commits, repositories present at the start (nested or deeper), and links out of the workspace", async () => {
    const { cwd, marker, git } = workspace();
    // A repository nested at the start and registered as a gitlink, one deeper than the search for nested ones goes.
    const nested = join(cwd, "vendor/lib");
    const deep = join(cwd, "a/b/c/d/e/sub");
    for (const dir of [nested, deep]) {
      mkdirSync(dir, { recursive: true });
      git("init -q", dir);
      git("commit -q --allow-empty -m x", dir);
    }
    git("add vendor/lib a/b/c/d/e/sub");
    git("commit -qm gitlinks");
    // Someone else's repository outside the workspace: a command links a submodule path to it.
    const other = join(marker, "..", "other");
    mkdirSync(other);
    git("init -q", other);
    const messages = await sandboxed(
      bash(
        "echo b > b.txt && git add b.txt && git -c user.name=t -c user.email=t@t commit -qm second && echo COMMITTED",
        `${plant("vendor/link", marker)} && git add vendor/link && rm -rf vendor/link && ln -s ${other} vendor/link && echo LINKED`,
      ),
      cwd,
    );
    const [committed, linked] = texts(messages);
    expect(committed).toContain("COMMITTED");
    expect(linked).toContain("LINKED");
    expect(violations(messages)).toEqual([]);
    expect(git("log --format=%s")).toBe("second\ngitlinks\nfirst\n");
    for (const dir of [nested, deep, other]) expect(statSync(join(dir, ".git")).isDirectory()).toBe(true);
    // The host's git refuses a link at a submodule path rather than follow it.
    expect(() => git("status")).toThrow("expected submodule path 'vendor/link' not to be a symbolic link");
    expect(existsSync(marker)).toBe(false);
  });
});
