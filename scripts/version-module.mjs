// Writes src/version.ts from package.json's version, so that the library (tsc), the CLI bundle
// (esbuild) and the tarball carry it as a constant: nothing reads package.json at run time.
// Run by `npm run build` and by npm's `version` lifecycle (`npm version` stages the file it wrote);
// test/version.test.ts fails when the two disagree.
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const { version } = JSON.parse(readFileSync(resolve(ROOT, "package.json"), "utf8"));
const target = resolve(ROOT, "src/version.ts");
const text =
  "// Written by scripts/version-module.mjs from package.json's version: edit package.json, not this file.\n\n" +
  "/** Gyre's version, as package.json gives it. */\n" +
  `export const GYRE_VERSION = ${JSON.stringify(version)};\n`;
let current = "";
try {
  current = readFileSync(target, "utf8");
} catch {
  // Not written yet.
}
if (current !== text) writeFileSync(target, text);
