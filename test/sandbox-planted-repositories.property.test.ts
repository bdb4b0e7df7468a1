import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defineTool } from "../src/index.js";
import { type MockScript, type MockTurn, mockTurn } from "../src/testing/index.js";
import { FORMATS, runQuery, withMock } from "./helpers.js";
import { hostGit, plantedWorkspace, plantIn } from "./planted-repositories-support.js";
import { z } from "zod";

// Issue 26: generated sequences of sandboxed commands that plant repositories (git init in the
// root or in subfolders, config and hook writes, .git files and links, dangling links, bare
// repositories), some in the background writing after later commands; afterwards the host's git
// status, commit and fetch run nothing planted, and no empty folder of the sandbox's is left.

const [anthropic] = FORMATS;
const FOLDERS = [".", "a", "a/b"] as const;
const KINDS = ["init", "plant", "init-plant", "bare", "git-file", "link", "dangling"] as const;
type Step = { kind: (typeof KINDS)[number]; dir: (typeof FOLDERS)[number]; background: boolean };

/** The shell text of one step; `n` keeps the names of the steps apart, `marker` is what planted code would touch. */
function command(step: Step, n: number, marker: string): string {
  const d = step.dir;
  const hidden = `.h${n}`;
  const elsewhere = `git init -q ${hidden} && ${plantIn(`${hidden}/.git`, marker)}`;
  switch (step.kind) {
    case "init":
      return `mkdir -p ${d} && git init -q ${d}`;
    case "plant":
      return plantIn(`${d}/.git`, marker);
    case "init-plant":
      return `mkdir -p ${d} && git init -q ${d} && ${plantIn(`${d}/.git`, marker)}`;
    case "bare":
      return `git init -q --bare ${d}/b${n} && ${plantIn(`${d}/b${n}`, marker)}`;
    case "git-file":
      return `${elsewhere} && mkdir -p ${d} && rm -rf ${d}/.git; echo "gitdir: $PWD/${hidden}/.git" > ${d}/.git`;
    case "link":
      return `${elsewhere} && mkdir -p ${d} && rm -rf ${d}/.git; ln -s "$PWD/${hidden}/.git" ${d}/.git`;
    case "dangling":
      return (
        `mkdir -p e${n} && cp -r ${d}/.git/objects ${d}/.git/refs ${d}/.git/HEAD e${n}/ && ` +
        `git --git-dir=e${n} config core.fsmonitor 'touch ${marker}; false'; ` +
        `ln -s ../cd${n}.txt ${d}/.git/commondir; echo ../e${n} > cd${n}.txt`
      );
  }
}

/** Waits on the host for a path to appear (a background command's last write): a real event. */
function waitFor(cwd: string) {
  return defineTool({
    name: "wait_for",
    description: "Waits on the host until a path exists.",
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => {
      const deadline = Date.now() + 15_000;
      while (!existsSync(join(cwd, path))) {
        if (Date.now() > deadline) return { content: `timed out: ${path}`, isError: true };
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return "ok";
    },
  });
}

/** The script: foreground steps run in turn; background ones wait for `go`, which the last foreground command makes. */
function script(steps: readonly Step[], marker: string): MockScript {
  const turns: MockTurn[] = steps.map((step, n) => {
    const text = `${command(step, n, marker)}; true`;
    if (!step.background) return mockTurn.toolUse("Bash", { command: text });
    const waiting = `until [ -e go ]; do sleep 0.02; done; ${text}; touch bg-done-${n}`;
    return mockTurn.toolUse("Bash", { command: waiting, run_in_background: true });
  });
  turns.push(mockTurn.toolUse("Bash", { command: "touch go" }));
  steps.forEach((step, n) => {
    if (step.background) turns.push(mockTurn.toolUse("wait_for", { path: `bg-done-${n}` }));
  });
  return { mode: "sequential", turns: [...turns, mockTurn.text("done")] };
}

/** Every folder of the workspace, two levels down, `.git`s and what the sandbox set aside excluded. */
function folders(cwd: string, depth = 2): string[] {
  const below = readdirSync(cwd, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith(".git"))
    .flatMap((entry) => (depth > 0 ? folders(join(cwd, entry.name), depth - 1) : [join(cwd, entry.name)]));
  return [cwd, ...below];
}

const step = fc.record({
  kind: fc.constantFrom(...KINDS),
  dir: fc.constantFrom(...FOLDERS),
  background: fc.boolean(),
});

describe("sandboxed Bash: generated plants of repositories (property)", () => {
  it("the host's git status, commit and fetch run nothing planted; no empty folder of ours is left", async () => {
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(step, { minLength: 1, maxLength: 4 }), async (repository, steps) => {
        const { cwd, outside, remote } = plantedWorkspace(repository);
        const marker = join(outside, "pwned");
        try {
          await withMock(script(steps, marker), (server) =>
            runQuery(server, anthropic, "go", {
              cwd,
              permissionMode: "bypassPermissions",
              sandbox: { enabled: true },
              tools: ["Bash", waitFor(cwd)],
            }),
          );
          for (const name of [".claude", ".gyre", ".git/modules", ".git/worktrees"]) {
            expect(existsSync(join(cwd, name)), name).toBe(false);
          }
          for (const dir of folders(cwd)) hostGit(dir, remote);
          expect(existsSync(marker)).toBe(false);
        } finally {
          rmSync(cwd, { recursive: true, force: true });
          rmSync(outside, { recursive: true, force: true });
        }
      }),
      { numRuns: 15 },
    );
    // Fifteen generated cases, each a few sandboxed commands and git runs on the host: about
    // 10 s quiet, over 30 s when the machine is loaded (the whole suite runs beside it).
  }, 120_000);
});
