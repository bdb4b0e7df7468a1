import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { constants, Script } from "node:vm";

/**
 * Where the code cache of `bundle` for `command` lives: a file in `$NODE_COMPILE_CACHE/gyre`
 * (Node's variable for its compile cache), else in `<tmpdir>/gyre-compile-cache-<uid>`, in a
 * folder of the install's own (named by a hash of the bundle's folder: two checkouts never
 * share a cache, whose code would name the other's files, nor clear each other's), named after
 * the bundle (whose name carries its content hash), the command and the Node version.
 * Undefined when `NODE_DISABLE_COMPILE_CACHE` is set or the directory is not ours.
 */
export function codeCacheFile(bundle: string, command: string | undefined): string | undefined {
  if (process.env.NODE_DISABLE_COMPILE_CACHE) return undefined;
  try {
    const uid = process.getuid?.();
    const base = process.env.NODE_COMPILE_CACHE
      ? join(process.env.NODE_COMPILE_CACHE, "gyre")
      : join(tmpdir(), `gyre-compile-cache${uid === undefined ? "" : `-${uid}`}`);
    const install = createHash("sha256")
      .update(dirname(resolve(bundle)))
      .digest("hex")
      .slice(0, 16);
    const directory = join(base, install);
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    // The cache is bytecode that runs as our code: trust only directories we own.
    if (uid !== undefined && [base, directory].some((folder) => statSync(folder).uid !== uid)) return undefined;
    // One cache per command, so a `gyre --version` does not leave `gyre run` a cache without its code.
    const kind = command && /^[a-z][a-z-]{0,30}$/.test(command) ? command : "other";
    return join(directory, `${basename(bundle)}.${kind}.${process.version}-${process.arch}.v8cache`);
  } catch {
    return undefined;
  }
}

/**
 * Runs a CommonJS bundle as `require` would, compiled with V8's code cache (for Node
 * versions without `module.enableCompileCache`): with the bytecode V8 produced in an
 * earlier run, a start skips parsing and compiling most of the bundle. Without a usable
 * cache (first run, another Node, a damaged file) the bundle compiles from source and,
 * if the process exits with code 0, the functions that run used are cached for the next
 * start. Failing to read or write the cache only loses the speed-up.
 *
 * A split bundle requires its sibling files (`./cli-….js`, scripts/bundle-cli.mjs): with
 * `cacheFileOf`, each is loaded the same way, once, with a cache file of its own.
 */
export function runWithCodeCache(
  bundle: string,
  cacheFile: string | undefined,
  cacheFileOf?: (file: string) => string | undefined,
): void {
  const loaded = new Map<string, { exports: unknown }>();
  const uncached: { file: string; cacheFile: string; script: Script }[] = [];
  const load = (file: string, cacheFileOfFile: string | undefined): unknown => {
    // Once the shell parser has changed V8's flags (src/permissions/shell/parser.ts; until exit),
    // V8 would reject the cache, and a cache written now would be rejected by the next start.
    const cache = Reflect.get(globalThis, V8_FLAGS_CHANGED) === true ? undefined : cacheFileOfFile;
    const source = readFileSync(file, "utf8").replace(/^#!/, "//");
    const cachedData = cache === undefined ? undefined : readCache(cache);
    const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
      filename: file,
      cachedData,
      importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
    if (cache !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
      if (uncached.length === 0) process.once("exit", (code) => writeCaches(code, uncached, dirname(bundle)));
      uncached.push({ file, cacheFile: cache, script });
    }
    const module = { exports: {} };
    loaded.set(file, module);
    const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
    wrapper.call(module.exports, module.exports, requireFrom(file), module, file, dirname(file));
    return module.exports;
  };
  const requireFrom = (file: string): NodeJS.Require => {
    const nodeRequire = createRequire(file);
    if (cacheFileOf === undefined) return nodeRequire;
    const require = (id: string): unknown => {
      if (!SIBLING.test(id)) return nodeRequire(id);
      const sibling = join(dirname(file), id);
      return loaded.has(sibling) ? loaded.get(sibling)?.exports : load(sibling, cacheFileOf(sibling));
    };
    return Object.assign(require, {
      resolve: nodeRequire.resolve,
      cache: nodeRequire.cache,
      extensions: nodeRequire.extensions,
      main: nodeRequire.main,
    });
  };
  load(bundle, cacheFile);
}

/** Set on globalThis while V8's flags are not the process's own. */
const V8_FLAGS_CHANGED = Symbol.for("gyre.v8-flags-changed");

/** A file of the split bundle beside the one that requires it. */
const SIBLING = /^\.\/[\w-]+\.js$/;

/**
 * At exit, the caches of the files that ran without one; a failed run (a missing key, a bad
 * flag) has used too little of the CLI to be worth caching. Then the caches of bundles no
 * longer beside these (earlier builds) are removed.
 */
function writeCaches(code: number, files: readonly { cacheFile: string; script: Script }[], bundleDir: string): void {
  if (code !== 0) return;
  for (const { cacheFile, script } of files) writeCache(cacheFile, script.createCachedData());
  const folder = dirname(files[0]!.cacheFile);
  try {
    for (const name of readdirSync(folder)) {
      // "cli-ABC.js.run.v20.20.2-x64.v8cache": the bundle is the name up to its second dot.
      const bundleName = name.split(".", 2).join(".");
      if (!existsSync(join(bundleDir, bundleName))) rmSync(join(folder, name), { force: true });
    }
  } catch {
    // Old caches stay.
  }
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Writes the cache aside and renames it, so a concurrent start never reads half a file. */
function writeCache(file: string, data: Buffer): void {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
  } catch {
    // No cache this time.
  }
}
