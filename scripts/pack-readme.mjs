// npm ships the README.md at the package root. The repository's README is for people working
// on Gyre; docs/package-README.md is for people who installed the package. `prepack` runs
// `swap`: the repository's README is kept in .pack-readme/ and the package's takes its place;
// `postpack` runs `restore`. A pack that fails in between leaves the kept copy, which the next
// `swap` or `restore` puts back before anything else (`npm run postpack` does it by hand).
import { copyFileSync, existsSync, mkdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "..");
const readme = join(ROOT, "README.md");
const keptDir = join(ROOT, ".pack-readme");
const kept = join(keptDir, "README.md");

function restore() {
  if (!existsSync(kept)) return;
  copyFileSync(kept, readme);
  rmSync(keptDir, { recursive: true, force: true });
}

const command = process.argv[2];
if (command === "swap") {
  restore();
  mkdirSync(keptDir, { recursive: true });
  copyFileSync(readme, kept);
  copyFileSync(join(ROOT, "docs", "package-README.md"), readme);
} else if (command === "restore") {
  restore();
} else {
  console.error("usage: node scripts/pack-readme.mjs swap|restore");
  process.exitCode = 2;
}
