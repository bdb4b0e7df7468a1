#!/usr/bin/env node
// The `gyre` executable (dist/bin/gyre.js, bundled as CommonJS by scripts/bundle-cli.mjs, so
// __dirname is dist/bin): starts the bundled CLI (main.ts, split into CommonJS files loaded as
// they are needed) through V8's code cache, so a start does not compile the CLI from source.
// Node >= 22.1 caches with its own `module.enableCompileCache()`; older versions use
// runWithCodeCache. The interactive agent (`gyre` on a terminal) is an ES module bundle of its
// own: Ink needs ES modules (top-level await), and print mode then never loads it.
import Module, { createRequire } from "node:module";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { codeCacheFile, runWithCodeCache } from "./code-cache.js";
import { wantsInteractive } from "./interactive.js";

/** File names of the bundled CLI's entry and terminal UI next to this file, with their content hash; set by the bundler. */
declare const GYRE_CLI_BUNDLE: string;
declare const GYRE_TUI_BUNDLE: string;

const args = process.argv.slice(2);
const { enableCompileCache } = Module as { enableCompileCache?: () => unknown };
if (wantsInteractive(args, process.stdin.isTTY === true, process.stdout.isTTY === true)) {
  enableCompileCache?.();
  void import(pathToFileURL(join(__dirname, GYRE_TUI_BUNDLE)).href);
} else {
  const bundle = join(__dirname, GYRE_CLI_BUNDLE);
  if (enableCompileCache) {
    enableCompileCache();
    createRequire(bundle)(bundle);
  } else {
    runWithCodeCache(bundle, codeCacheFile(bundle, args[0]), (file) => codeCacheFile(file, args[0]));
  }
}
