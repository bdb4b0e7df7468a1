// Prints, as a JSON array of file URLs, every module file that importing one specifier loads:
// ES modules through a load hook, CommonJS ones from require's cache. bench/import.bench.mjs
// counts them; test/package-import.test.ts checks what `import("gyre")` must not load.
// Usage: node scripts/loaded-modules.mjs gyre|gyre/testing|<path>
import { createRequire, register } from "node:module";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { MessageChannel } from "node:worker_threads";

const hooks = `
const loaded = new Set();
export function initialize({ port }) {
  port.on("message", () => port.postMessage([...loaded]));
  port.unref();
}
export async function load(url, context, nextLoad) {
  loaded.add(url);
  return nextLoad(url, context);
}
`;
const { port1, port2 } = new MessageChannel();
register(`data:text/javascript,${encodeURIComponent(hooks)}`, { data: { port: port2 }, transferList: [port2] });

const target = process.argv[2];
if (!target) throw new Error("usage: node scripts/loaded-modules.mjs SPECIFIER");
await import(/^[./]/.test(target) ? pathToFileURL(resolve(target)).href : target);
// The hooks run on their own thread: ask it for what it saw, after the import has settled.
const esm = await new Promise((done) => {
  port1.once("message", done);
  port1.postMessage("list");
});
port1.close();
const commonJs = Object.keys(createRequire(import.meta.url).cache).map((path) => pathToFileURL(path).href);
const files = [...new Set([...esm, ...commonJs])].filter((url) => url.startsWith("file:")).sort();
process.stdout.write(`${JSON.stringify(files)}\n`);
