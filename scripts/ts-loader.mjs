// Module hooks that let Node run the examples' TypeScript as written: esbuild strips the types
// of each .ts file as it is loaded (Node 20 cannot run TypeScript; 22.6+ only behind a flag
// until 23.6). Registered by scripts/ts-register.mjs (`node --import ./scripts/ts-register.mjs
// examples/NAME.ts`); `npm run example` does that.
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { transform } from "esbuild";

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !url.endsWith(".ts")) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { code } = await transform(await readFile(path, "utf8"), {
    loader: "ts",
    format: "esm",
    target: "node20",
    sourcemap: "inline",
    sourcefile: path,
  });
  return { format: "module", source: code, shortCircuit: true };
}
