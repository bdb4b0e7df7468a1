// The `gyre` executable starts the bundled CLI through V8's code cache (src/cli/launch.ts,
// src/cli/code-cache.ts). These run the built files as real processes: dist/cli for the
// cache on its own, dist/bin for the CLI.
import { execFile } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { createHash } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startMockLLM } from "../src/testing/index.js";
import { cliEnv } from "./helpers.js";

const exec = promisify(execFile);
const CODE_CACHE = resolve("dist/cli/code-cache.js");
const CLI = resolve("dist/bin/gyre.js");

/** Runs `bundle` through runWithCodeCache, as the launcher does for the command `run`. */
const LAUNCH = `
  const { codeCacheFile, runWithCodeCache } = await import(process.env.CODE_CACHE);
  runWithCodeCache(process.env.BUNDLE, codeCacheFile(process.env.BUNDLE, "run"));
`;

/** Runs `bundle` as the launcher does, its sibling files through the code cache too. */
const LAUNCH_SPLIT = `
  const { codeCacheFile, runWithCodeCache } = await import(process.env.CODE_CACHE);
  runWithCodeCache(process.env.BUNDLE, codeCacheFile(process.env.BUNDLE, "run"), (file) => codeCacheFile(file, "run"));
`;

/** A CommonJS bundle that reports what it was given and exits with $EXIT_CODE. */
const BUNDLE = `
  const path = require("node:path");
  console.log(JSON.stringify({
    file: path.basename(__filename),
    dirname: __dirname === path.dirname(__filename),
    exports: module.exports === exports && this === exports,
  }));
  process.exitCode = Number(process.env.EXIT_CODE || 0);
`;

let dir: string;
let cacheRoot: string;
let bundle: string;

beforeAll(() => {
  for (const built of [CODE_CACHE, CLI])
    if (!existsSync(built)) throw new Error(`${built} is missing: run \`npm run build\` first (npm test does)`);
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-code-cache-"));
  cacheRoot = join(dir, "cache");
  bundle = join(dir, "cli-TEST.cjs");
  writeFileSync(bundle, BUNDLE);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function launch(
  env: Record<string, string> = {},
  script: string = LAUNCH,
): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await exec(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, CODE_CACHE, BUNDLE: bundle, NODE_COMPILE_CACHE: cacheRoot, ...env },
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string };
    if (typeof failed.code !== "number") throw error;
    return { code: failed.code, stdout: failed.stdout ?? "" };
  }
}

/** The cache folder of the install whose bundle is `bundleFile`: one per install. */
function installFolder(bundleFile = bundle): string {
  return join(cacheRoot, "gyre", createHash("sha256").update(dirname(bundleFile)).digest("hex").slice(0, 16));
}

function cacheFiles(bundleFile = bundle): string[] {
  const folder = installFolder(bundleFile);
  return existsSync(folder) ? readdirSync(folder).map((name) => join(folder, name)) : [];
}

describe("runWithCodeCache", () => {
  it("runs the bundle as CommonJS, with require, module, exports, __filename and __dirname", async () => {
    const { code, stdout } = await launch();
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ file: "cli-TEST.cjs", dirname: true, exports: true });
  });

  it("writes the cache after a successful run, and the next run uses it as it is", async () => {
    await launch();
    const [file, ...others] = cacheFiles();
    expect(others).toEqual([]);
    expect(file).toMatch(new RegExp(`cli-TEST\\.cjs\\.run\\.${process.version}-${process.arch}\\.v8cache$`));
    const written = { bytes: readFileSync(file!), mtimeMs: statSync(file!).mtimeMs };

    const again = await launch();
    expect(JSON.parse(again.stdout)).toMatchObject({ file: "cli-TEST.cjs" });
    // Accepted by V8, so not written again.
    expect({ bytes: readFileSync(file!), mtimeMs: statSync(file!).mtimeMs }).toEqual(written);
  });

  it("writes no cache after a failed run", async () => {
    expect((await launch({ EXIT_CODE: "1" })).code).toBe(1);
    expect(cacheFiles()).toEqual([]);
  });

  it("ignores a damaged cache and replaces it", async () => {
    await launch();
    const [file] = cacheFiles();
    const garbage = Buffer.alloc(statSync(file!).size, 0x5a);
    writeFileSync(file!, garbage);

    const { code, stdout } = await launch();
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ file: "cli-TEST.cjs" });
    expect(readFileSync(file!).equals(garbage)).toBe(false);
  });

  it("keeps one cache per install: two checkouts with the same bundle neither share nor clear it", async () => {
    const other = join(dir, "other-checkout", "cli-TEST.cjs");
    mkdirSync(dirname(other));
    writeFileSync(other, BUNDLE);
    await launch();
    await launch({ BUNDLE: other });
    expect(cacheFiles()).toHaveLength(1);
    expect(cacheFiles(other)).toHaveLength(1);
    expect(installFolder(other)).not.toBe(installFolder());
  });

  it("removes the caches of other bundles (earlier builds) when it writes one", async () => {
    const folder = installFolder();
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    const old = join(folder, `cli-OLD.cjs.run.${process.version}-${process.arch}.v8cache`);
    writeFileSync(old, "old bytecode");
    await launch();
    expect(existsSync(old)).toBe(false);
    expect(cacheFiles()).toHaveLength(1);
  });

  it("loads a split bundle's sibling files once each, each with a cache of its own", async () => {
    // As scripts/bundle-cli.mjs splits the CLI: the entry requires a shared file and a lazy one.
    writeFileSync(
      join(dir, "cli-SHARED.js"),
      "exports.loads = (globalThis.sharedLoads ?? 0) + 1; globalThis.sharedLoads = exports.loads;",
    );
    writeFileSync(
      join(dir, "cli-LAZY.js"),
      'exports.shared = require("./cli-SHARED.js"); exports.file = require("node:path").basename(__filename);',
    );
    writeFileSync(
      bundle,
      'const shared = require("./cli-SHARED.js");\n' +
        'Promise.resolve().then(() => require("./cli-LAZY.js")).then((lazy) => {\n' +
        "  console.log(JSON.stringify({ loads: shared.loads, same: lazy.shared === shared, file: lazy.file }));\n" +
        "});\n",
    );
    const first = await launch({}, LAUNCH_SPLIT);
    expect(JSON.parse(first.stdout)).toEqual({ loads: 1, same: true, file: "cli-LAZY.js" });
    const names = () =>
      cacheFiles()
        .map((file) => file.slice(file.lastIndexOf("/") + 1).split(".run.")[0])
        .sort();
    expect(names()).toEqual(["cli-LAZY.js", "cli-SHARED.js", "cli-TEST.cjs"]);
    const written = cacheFiles().map((file) => statSync(file).mtimeMs);

    const again = await launch({}, LAUNCH_SPLIT);
    expect(JSON.parse(again.stdout)).toEqual({ loads: 1, same: true, file: "cli-LAZY.js" });
    // All three accepted by V8, so none written again.
    expect(cacheFiles().map((file) => statSync(file).mtimeMs)).toEqual(written);
  });

  it("writes nothing with NODE_DISABLE_COMPILE_CACHE", async () => {
    expect((await launch({ NODE_DISABLE_COMPILE_CACHE: "1" })).code).toBe(0);
    expect(existsSync(cacheRoot)).toBe(false);
  });
});

describe("the gyre executable", () => {
  it("prints the same with a fresh and with a warm code cache, which it fills", async () => {
    const env = { ...process.env, NODE_COMPILE_CACHE: cacheRoot };
    const cold = await exec(process.execPath, [CLI, "--version"], { env });
    const warm = await exec(process.execPath, [CLI, "--version"], { env });
    expect(cold.stdout).toBe("gyre 0.1.0\n");
    expect(warm.stdout).toBe(cold.stdout);
    expect(readdirSync(cacheRoot, { recursive: true }).length).toBeGreaterThan(0);
  });

  it("reuses the cache of a run that judged a Bash command: the shell parser's V8 flags do not leave it rejected", async () => {
    // The Bash parser compiles its grammar with --liftoff-only (src/permissions/shell/parser.ts);
    // V8 rejects code cache written under other flags than the reader's, so a cache written at
    // the exit of such a run was compiled anew, and written again, at every start.
    const project = join(dir, "project");
    mkdirSync(project);
    const server = await startMockLLM({
      script: {
        turns: [
          { content: [{ type: "tool_use", name: "Bash", input: { command: "echo from-bash" } }] },
          { content: [{ type: "text", text: "done" }] },
        ],
      },
    });
    try {
      const snapshot = () =>
        readdirSync(cacheRoot, { recursive: true, encoding: "utf8" })
          .sort()
          .map((name) => {
            const stat = statSync(join(cacheRoot, name));
            return { name, size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino };
          });
      const run = async () => {
        server.reset();
        const { stdout } = await exec(
          process.execPath,
          [CLI, "run", "go", "--cwd", project, "--permission-mode", "bypassPermissions", "--setting-sources", ""],
          { env: cliEnv({ ...server.env(), NODE_COMPILE_CACHE: cacheRoot }) },
        );
        expect(stdout).toBe("done\n");
        expect(JSON.stringify(server.requests.at(-1)?.body)).toContain("from-bash");
      };
      await run();
      const written = snapshot();
      expect(written.length).toBeGreaterThan(0);
      await run();
      expect(snapshot()).toEqual(written);
    } finally {
      await server.close();
    }
  });
});
