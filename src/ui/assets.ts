import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/**
 * Where the built page is: dist/ui-page, built by Vite from ui/ (`npm run build`). This file is
 * dist/ui/assets.js, or in the bundled CLI dist/bin/cli-….js: both one folder below dist.
 */
export function defaultPageFolder(): string {
  return fileURLToPath(new URL("../ui-page/", import.meta.url));
}

/** True when the page was built. */
export function pageBuilt(folder: string): boolean {
  return existsSync(join(folder, "index.html"));
}

/** A file of the built page (`/` is index.html), or undefined; never a path outside `folder`. */
export async function pageFile(folder: string, path: string): Promise<{ body: Buffer; type: string } | undefined> {
  let relative: string;
  try {
    relative = path === "/" || path === "" ? "index.html" : decodeURIComponent(path).replace(/^\/+/, "");
  } catch {
    return undefined;
  }
  const file = normalize(join(folder, relative));
  if (!file.startsWith(normalize(folder.endsWith(sep) ? folder : folder + sep))) return undefined;
  const type = TYPES[extname(file)];
  if (!type) return undefined;
  try {
    return { body: await readFile(file), type };
  } catch {
    return undefined;
  }
}
