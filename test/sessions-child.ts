import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { afterAll, afterEach, beforeAll } from "vitest";
import { z } from "zod";
import { defineTool } from "../src/index.js";

const ROOT = resolve(import.meta.dirname, "..");
const SOURCES = ["src/sessions", "src/errors", "src/protocol", "src/files"];

/**
 * Transpiles the session store's sources (and what they import) to plain JS under
 * node_modules/.cache, so a child `node` process can run the real store code. Returns the
 * path of the compiled `sessions/index.js` and a cleanup.
 */
export function compileSessionsForChild(): { entry: string; cleanup: () => void } {
  return compileForChild(SOURCES, join("src", "sessions", "index.js"));
}

/** Like {@link compileSessionsForChild}, for all of `src/` (every folder): the entry is `src/index.js`. */
export function compileAllForChild(): { entry: string; cleanup: () => void } {
  const folders = readdirSync(join(ROOT, "src"), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
  return compileForChild(["src", ...folders], join("src", "index.js"));
}

function compileForChild(folders: readonly string[], entry: string): { entry: string; cleanup: () => void } {
  const out = join(ROOT, "node_modules", ".cache", `gyre-sessions-${randomBytes(4).toString("hex")}`);
  for (const folder of folders) {
    for (const file of readdirSync(join(ROOT, folder))) {
      if (!file.endsWith(".ts") || file.endsWith(".test.ts")) continue;
      const source = readFileSync(join(ROOT, folder, file), "utf8");
      const js = ts.transpileModule(source, {
        compilerOptions: {
          module: ts.ModuleKind.ESNext,
          target: ts.ScriptTarget.ES2022,
          verbatimModuleSyntax: false,
        },
      }).outputText;
      const target = join(out, folder, file.replace(/\.ts$/, ".js"));
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, js);
    }
  }
  writeFileSync(join(out, "package.json"), JSON.stringify({ type: "module" }));
  return {
    entry: join(out, entry),
    cleanup: () => rmSync(out, { recursive: true, force: true }),
  };
}

/**
 * Starts `node` running `script` (ESM, with `env`) and resolves once it prints `marker`
 * (default `locked`: the child holds the lock). Rejects with its stderr if it exits first.
 */
export function startLockHolder(script: string, env: Record<string, string>, marker = "locked"): Promise<ChildProcess> {
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolvePromise, reject) => {
    let stdout = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      if (stdout.includes(`${marker}\n`)) resolvePromise(child);
    });
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before printing ${marker}: ${stderr}`)));
  });
}

/** SIGKILLs the child (no cleanup can run) and waits until it is gone. */
export function killHard(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolvePromise) => {
    child.once("exit", () => resolvePromise());
    child.kill("SIGKILL");
  });
}

/**
 * Children for one test file that run all of `src/` compiled ({@link compileAllForChild}):
 * compiled before the file's tests and removed after them; each child `start` started is
 * SIGKILLed after its test. `start` is {@link startLockHolder} with `ENTRY` set.
 */
export function compiledChildren(): {
  start: (script: string, env: Record<string, string>, marker?: string) => Promise<ChildProcess>;
} {
  let compiled: { entry: string; cleanup: () => void } | undefined;
  const children: ChildProcess[] = [];
  beforeAll(() => {
    compiled = compileAllForChild();
  });
  afterAll(() => compiled?.cleanup());
  afterEach(async () => {
    await Promise.all(children.splice(0).map(killHard));
  });
  return {
    async start(script, env, marker) {
      if (!compiled) throw new Error("compiledChildren().start runs in a test, after the sources are compiled");
      const child = await startLockHolder(script, { ENTRY: compiled.entry, ...env }, marker);
      children.push(child);
      return child;
    },
  };
}

/** The `hang` tool of {@link hangingQueryScript}, for the run that resumes in the test's own process. */
export const hang = defineTool({
  name: "hang",
  description: "Never returns.",
  inputSchema: z.object({}),
  readOnly: true,
  execute: () => new Promise<string>(() => {}),
});

/**
 * A child script (for {@link compiledChildren}) running a real query against the mock LLM at
 * `BASE_URL`, stored in the SQLite file `DB` as session `SESSION`, in `CWD`. Its `hang` tool
 * never returns and prints `tool-started` once called, so the test can kill the child in the
 * middle of a turn. `setup` is code run before the query; `tools` and `options` are source
 * text of the query's `tools` and of more options.
 */
export function hangingQueryScript(input: { prompt: string; tools: string; setup?: string; options?: string }): string {
  return `
  const { query, defineTool } = await import(process.env.ENTRY);
  const { z } = await import("zod");
  const hang = defineTool({
    name: "hang",
    description: "Never returns.",
    inputSchema: z.object({}),
    readOnly: true,
    execute: () => {
      setInterval(() => {}, 1 << 30);
      process.stdout.write("tool-started\\n");
      return new Promise(() => {});
    },
  });
  ${input.setup ?? ""}
  const { openSqliteSessionStore } = await import(process.env.ENTRY.replace(/index\\.js$/, "sessions/index.js"));
  const store = openSqliteSessionStore({ path: process.env.DB });
  const q = query({
    prompt: ${JSON.stringify(input.prompt)},
    options: {
      model: "anthropic/claude-sonnet-4-5",
      env: { ANTHROPIC_API_KEY: "k", ANTHROPIC_BASE_URL: process.env.BASE_URL },
      tools: ${input.tools},
      ${input.options ?? ""}
      sessionId: process.env.SESSION,
      sessionStore: store,
      cwd: process.env.CWD,
    },
  });
  for await (const message of q) {}
`;
}
