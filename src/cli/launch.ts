#!/usr/bin/env node
// The `gyre` executable (dist/bin/gyre.js): starts the bundled CLI (main.ts, bundled by
// scripts/bundle-cli.mjs into one CommonJS file) through V8's code cache, so a start does
// not compile ~1 MB of JavaScript from source. Node >= 22.1 caches with its own
// `module.enableCompileCache()`; older versions use runWithCodeCache. The interactive agent
// (`gyre` on a terminal) is its own ES module bundle: Ink needs ES modules (top-level await),
// and print mode then never loads it.
import Module, { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { codeCacheFile, runWithCodeCache } from "./code-cache.js";
import { wantsInteractive } from "./interactive.js";

/** File names of the bundled CLI and terminal UI next to this file, with their content hash; set by the bundler. */
declare const GYRE_CLI_BUNDLE: string;
declare const GYRE_TUI_BUNDLE: string;

const args = process.argv.slice(2);
const { enableCompileCache } = Module as { enableCompileCache?: () => unknown };
if (wantsInteractive(args, process.stdin.isTTY === true, process.stdout.isTTY === true)) {
  enableCompileCache?.();
  await import(new URL(GYRE_TUI_BUNDLE, import.meta.url).href);
} else {
  const bundle = fileURLToPath(new URL(GYRE_CLI_BUNDLE, import.meta.url));
  if (enableCompileCache) {
    enableCompileCache();
    createRequire(import.meta.url)(bundle);
  } else {
    runWithCodeCache(bundle, codeCacheFile(bundle, process.argv[2]));
  }
}
