import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
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
 */
export function runWithCodeCache(bundle: string, cacheFile: string | undefined): void {
  const source = readFileSync(bundle, "utf8").replace(/^#!/, "//");
  const cachedData = cacheFile === undefined ? undefined : readCache(cacheFile);
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    cachedData,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  if (cacheFile !== undefined && (cachedData === undefined || script.cachedDataRejected)) {
    process.once("exit", (code) => {
      // A failed run (a missing key, a bad flag) has used too little of the CLI to be worth caching.
      if (code === 0) writeCache(cacheFile, script.createCachedData(), basename(bundle));
    });
  }
  const module = { exports: {} };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(bundle), module, bundle, dirname(bundle));
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/**
 * Writes the cache aside and renames it, so a concurrent start never reads half a file,
 * then removes the caches of other bundles (earlier builds) from the folder.
 */
function writeCache(file: string, data: Buffer, bundleName: string): void {
  const partial = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, data, { mode: 0o600 });
    renameSync(partial, file);
    const folder = dirname(file);
    for (const name of readdirSync(folder))
      if (!name.startsWith(`${bundleName}.`)) rmSync(join(folder, name), { force: true });
  } catch {
    // No cache this time.
  }
}
