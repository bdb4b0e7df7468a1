import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";

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
