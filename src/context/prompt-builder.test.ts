import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import { SystemPromptBuilder, type SystemPromptBuilderOptions } from "./prompt-builder.js";
import { buildSystemPrompt, DEFAULT_SYSTEM_PROMPT } from "./system-prompt.js";

let root: string;

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(root, path)), { recursive: true });
  await writeFile(join(root, path), text);
}

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "gyre-prompt-"));
  await put("home/.gyre/AGENTS.md", "Prefer small commits.");
  await put("home/.claude/CLAUDE.md", "Answer in English.\n");
  await put("repo/.git/HEAD", "ref: refs/heads/feature/login\n");
  await put("repo/AGENTS.md", "Run `npm test` before you finish.");
  await put("repo/CLAUDE.md", "Run `npm test` before you finish."); // same text: shown once
  await put("repo/packages/api/CLAUDE.md", "This package is the HTTP API.");
  await put("repo/packages/api/AGENTS.md", "   ");
  await put("detached/.git/HEAD", "3f2a9c1d7e6b5a4f3e2d1c0b9a8f7e6d5c4b3a29\n");
  await put("gitdirs/wt/HEAD", "ref: refs/heads/hotfix\n");
  await put("worktree/.git", `gitdir: ${join(root, "gitdirs/wt")}\n`);
  await put("AGENTS.md", "Outside any repository: never read.");
  await mkdir(join(root, "plain/sub"), { recursive: true });
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function builder(cwd: string, options: Partial<SystemPromptBuilderOptions> = {}): SystemPromptBuilder {
  return new SystemPromptBuilder({
    cwd: join(root, cwd),
    platform: "linux",
    date: "2025-06-01",
    home: join(root, "home"),
    ...options,
  });
}

/** The prompt without Gyre's default text and with the temp dir as `<tmp>`, for snapshots. */
async function sections(b: SystemPromptBuilder, ...args: Parameters<SystemPromptBuilder["build"]>) {
  const text = await b.build(...args);
  expect(text.startsWith(DEFAULT_SYSTEM_PROMPT)).toBe(true);
  return text.slice(DEFAULT_SYSTEM_PROMPT.length).replaceAll(root, "<tmp>");
}

describe("SystemPromptBuilder", () => {
  it("uses a plain string exactly, with no sections", async () => {
    expect(
      await builder("repo").build("You are a pirate.", {
        todos: [{ content: "x", status: "pending", activeForm: "x" }],
      }),
    ).toBe("You are a pirate.");
  });

  it("builds the preset with environment, git branch and project instructions from home, root and cwd", async () => {
    const text = await sections(builder("repo/packages/api"), {
      type: "preset",
      preset: "claude_code",
      append: "Be terse.",
    });
    expect(text).toMatchInlineSnapshot(`
      "

      <env>
      Working directory: <tmp>/repo/packages/api
      Is a git repository: yes
      Git branch: feature/login
      Platform: linux
      Today's date: 2025-06-01
      </env>

      <project-instructions>
      Instructions from the user and the project. Follow them; where they differ, later (more specific) files take precedence over earlier ones.

      <file path="<tmp>/home/.gyre/AGENTS.md">
      Prefer small commits.
      </file>

      <file path="<tmp>/home/.claude/CLAUDE.md">
      Answer in English.
      </file>

      <file path="<tmp>/repo/AGENTS.md">
      Run \`npm test\` before you finish.
      </file>

      <file path="<tmp>/repo/packages/api/CLAUDE.md">
      This package is the HTTP API.
      </file>
      </project-instructions>

      Be terse."
    `);
  });

  it("adds retrieved context and the todo list last", async () => {
    const b = builder("plain/sub", {
      home: null,
      retrieveContext: ({ todos }) => `Relevant: auth.ts (${todos.length} todos)`,
    });
    const text = await sections(b, undefined, {
      todos: [
        { content: "Read the code", status: "completed", activeForm: "Reading the code" },
        { content: "Fix the bug", status: "in_progress", activeForm: "Fixing the bug" },
        { content: "Run the tests", status: "pending", activeForm: "Running the tests" },
      ],
    });
    expect(text).toMatchInlineSnapshot(`
      "

      <env>
      Working directory: <tmp>/plain/sub
      Is a git repository: no
      Platform: linux
      Today's date: 2025-06-01
      </env>

      <retrieved-context>
      Relevant: auth.ts (3 todos)
      </retrieved-context>

      <todos>
      Your current task list ([x] done, [~] in progress, [ ] pending). Keep it up to date with TodoWrite as you work.
      [x] Read the code
      [~] Fix the bug
      [ ] Run the tests
      </todos>"
    `);
  });

  it("turns sections off", async () => {
    const b = builder("repo", {
      sections: { environment: false, projectInstructions: false, todos: false, retrievedContext: false },
      retrieveContext: () => "never",
    });
    const text = await b.build(
      { type: "preset", preset: "gyre" },
      {
        todos: [{ content: "x", status: "pending", activeForm: "x" }],
      },
    );
    expect(text).toBe(DEFAULT_SYSTEM_PROMPT);
  });

  it("reports a detached HEAD and a worktree's branch", async () => {
    expect(await sections(builder("detached", { home: null }), undefined)).toContain(
      "Git branch: HEAD detached at 3f2a9c1d7e6b",
    );
    expect(await sections(builder("worktree", { home: null }), undefined)).toContain("Git branch: hotfix");
  });

  it("wraps a failing retrieveContext callback in a hook_error", async () => {
    const b = builder("plain", {
      retrieveContext: () => {
        throw new Error("index offline");
      },
    });
    const failure = await b.build(undefined).catch((error: unknown) => error);
    expect(isGyreError(failure, "hook_error")).toBe(true);
  });
});

describe("buildSystemPrompt (synchronous, environment only)", () => {
  it("keeps its contract", () => {
    const env = { cwd: "/work", platform: "linux", date: "2025-06-01" };
    expect(buildSystemPrompt("exact", env)).toBe("exact");
    expect(
      buildSystemPrompt({ type: "preset", preset: "gyre", append: "More." }, env).slice(DEFAULT_SYSTEM_PROMPT.length),
    ).toMatchInlineSnapshot(`
        "

        <env>
        Working directory: /work
        Platform: linux
        Today's date: 2025-06-01
        </env>

        More."
      `);
  });
});
