// `npm run example -- NAME [--mock]`: runs examples/NAME.ts as a user's program runs, importing
// "gyre" (the package's own name: Node resolves it to this checkout's dist/ through package.json
// `exports`, so build first). Without --mock the example talks to the real provider its code
// names, with the keys in your environment. With --mock it talks to the scripted mock LLM
// instead: examples/mock/NAME.json is served by startMockLLM, its `{{workspace}}` replaced by a
// scratch folder that is also the example's first argument, the provider variables point at the
// mock, and sessions go to a throwaway data folder (GYRE_HOME). test/examples.test.ts runs every
// example this way.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const EXAMPLES = join(ROOT, "examples");
const args = process.argv.slice(2);
const mock = args.includes("--mock");
const [name] = args.filter((arg) => arg !== "--mock");
const names = readdirSync(EXAMPLES)
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.slice(0, -3));

if (!name || !names.includes(name)) {
  console.error(`usage: npm run example -- NAME [--mock]\nexamples: ${names.join(", ")}`);
  process.exit(2);
}
if (!existsSync(join(ROOT, "dist", "index.js"))) {
  console.error('example: dist/ is missing: run `npm run build` first (the examples import "gyre" from it)');
  process.exit(1);
}

const scratch = [];
const env = { ...process.env };
const exampleArgs = [];
let server;
if (mock) {
  const workspace = mkdtempSync(join(tmpdir(), `gyre-example-${name}-`));
  const home = mkdtempSync(join(tmpdir(), "gyre-example-home-"));
  scratch.push(workspace, home);
  const { parseMockScript, startMockLLM } = await import("gyre/testing");
  // JSON.stringify(...).slice(1, -1): the folder as it must appear inside a JSON string.
  const text = readFileSync(join(EXAMPLES, "mock", `${name}.json`), "utf8").replaceAll(
    "{{workspace}}",
    JSON.stringify(workspace).slice(1, -1),
  );
  server = await startMockLLM({ script: parseMockScript(JSON.parse(text), `examples/mock/${name}.json`) });
  Object.assign(env, server.env(), { GYRE_HOME: home });
  exampleArgs.push(workspace);
}

const child = spawn(
  process.execPath,
  [
    "--enable-source-maps",
    "--import",
    join(ROOT, "scripts", "ts-register.mjs"),
    join(EXAMPLES, `${name}.ts`),
    ...exampleArgs,
  ],
  { env, stdio: "inherit" },
);
const code = await new Promise((resolve) =>
  child.once("exit", (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))),
);
await server?.close();
for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
process.exitCode = code;
