#!/usr/bin/env node
// The `gyre` executable (dist/bin/gyre.js): starts the bundled CLI (main.ts, bundled by
// scripts/bundle-cli.mjs into one CommonJS file) through V8's code cache, so a start does
// not compile ~1 MB of JavaScript from source. Node >= 22.1 caches with its own
// `module.enableCompileCache()`; older versions use runWithCodeCache.
import Module, { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { codeCacheFile, runWithCodeCache } from "./code-cache.js";

/** File name of the bundled CLI next to this file, with its content hash; set by the bundler. */
declare const GYRE_CLI_BUNDLE: string;

const bundle = fileURLToPath(new URL(GYRE_CLI_BUNDLE, import.meta.url));
const { enableCompileCache } = Module as { enableCompileCache?: () => unknown };
if (enableCompileCache) {
  enableCompileCache();
  createRequire(import.meta.url)(bundle);
} else {
  runWithCodeCache(bundle, codeCacheFile(bundle, process.argv[2]));
}
