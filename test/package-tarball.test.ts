// The package as a user gets it: `npm pack` of the build, installed into a fresh project, then
// type-checked with `skipLibCheck: false` and run through `import` and `require`. Dependencies
// come from the npm cache (`npm ci` filled it) or the registry. Install scripts are skipped, so
// better-sqlite3 is not compiled (a minute or more where no prebuilt binary can be fetched):
// the runs here keep no sessions. pg, an optional peer dependency, is not installed.
import { execFile } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readmeExample } from "./readme-examples.js";

const run = promisify(execFile);
const ROOT = resolve(".");
const temp = mkdtempSync(join(tmpdir(), "gyre-tarball-"));
const stage = join(temp, "stage");
const project = join(temp, "project");
let tarball = "";

/** npm's own variables from an enclosing `npm test` (the repository's prefix among them) stay out. */
function npmEnv(): NodeJS.ProcessEnv {
  const keep = new Set(["npm_config_cache", "npm_config_registry", "npm_config_userconfig"]);
  return Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !key.toLowerCase().startsWith("npm_") || keep.has(key.toLowerCase())),
  );
}

async function npm(args: string[], cwd: string): Promise<string> {
  return (await run("npm", args, { cwd, env: npmEnv(), maxBuffer: 64 * 1024 * 1024 })).stdout;
}

async function node(args: string[]): Promise<string> {
  return (await run(process.execPath, args, { cwd: project })).stdout;
}

function version(name: string): string {
  return (JSON.parse(readFileSync(join(ROOT, "node_modules", name, "package.json"), "utf8")) as { version: string })
    .version;
}

beforeAll(async () => {
  if (!existsSync(join(ROOT, "dist/index.js"))) throw new Error("dist/ is missing: run `npm run build` first");
  // Packed from a copy, so the prepack/postpack README swap never touches this checkout.
  mkdirSync(stage);
  for (const path of [
    "package.json",
    "README.md",
    "LICENSE",
    "dist",
    "docs/package-README.md",
    "scripts/pack-readme.mjs",
  ]) {
    cpSync(join(ROOT, path), join(stage, path), { recursive: true });
  }
  const [packed] = JSON.parse(await npm(["pack", "--json", "--pack-destination", temp], stage)) as [
    { filename: string },
  ];
  tarball = join(temp, packed.filename);

  mkdirSync(project);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "uses-gyre", private: true, type: "module" }));
  // @types/node is what a TypeScript user has anyway; the version this repository uses is in the cache.
  await npm(
    [
      "install",
      "--prefer-offline",
      "--no-audit",
      "--no-fund",
      "--ignore-scripts",
      "--no-package-lock",
      tarball,
      `@types/node@${version("@types/node")}`,
    ],
    project,
  );
}, 240_000);

afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("the packed package, installed in a fresh project", () => {
  it("ships the package README as README.md, and the pack leaves the repository README as it was", async () => {
    const packedReadme = (await run("tar", ["-xzOf", tarball, "package/README.md"])).stdout;
    expect(packedReadme).toBe(readFileSync(join(ROOT, "docs/package-README.md"), "utf8"));
    expect(readFileSync(join(stage, "README.md"), "utf8")).toBe(readFileSync(join(ROOT, "README.md"), "utf8"));
    expect(existsSync(join(stage, ".pack-readme"))).toBe(false);
    const listing = (await run("tar", ["-tzf", tarball])).stdout.split("\n");
    expect(listing).toContain("package/LICENSE");
    expect(listing.filter((path) => path.startsWith("package/docs/"))).toEqual([]);
  });

  it("does not install pg, an optional peer dependency", () => {
    expect(existsSync(join(project, "node_modules/gyre"))).toBe(true);
    expect(existsSync(join(project, "node_modules/pg"))).toBe(false);
  });

  it("type-checks with strict and skipLibCheck: false, the README example included", async () => {
    writeFileSync(
      join(project, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          skipLibCheck: false,
          noEmit: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          types: ["node"],
        },
        files: ["uses-types.ts", "example.ts"],
      }),
    );
    writeFileSync(
      join(project, "uses-types.ts"),
      [
        'import { defineTool, GyreError, openPostgresSessionStore, openSqliteSessionStore, query } from "gyre";',
        'import type { Options, PgPoolLike, SDKMessage, SessionStore } from "gyre";',
        'import { mockTurn, startMockLLM, type MockLLMServer, type MockScript } from "gyre/testing";',
        "export const options: Options = { model: 'anthropic/claude-sonnet-4-5', maxTurns: 2 };",
        "export const script: MockScript = { mode: 'sequential', turns: [mockTurn.text('hi')] };",
        "export type Used = [SDKMessage, SessionStore, MockLLMServer, PgPoolLike, GyreError];",
        "export const used = [defineTool, openPostgresSessionStore, openSqliteSessionStore, query, startMockLLM];",
        "",
      ].join("\n"),
    );
    writeFileSync(join(project, "example.ts"), readmeExample(join(ROOT, "docs/package-README.md"), "mock-llm"));
    const tsc = join(ROOT, "node_modules/typescript/bin/tsc");
    const result = await run(process.execPath, [tsc, "-p", "."], { cwd: project }).catch(
      (error: { stdout: string }) => error,
    );
    expect(result.stdout).toBe("");
    // tsc checks the package's declarations and every dependency's from scratch (skipLibCheck:
    // false): ~10 s of CPU on a quiet machine, several times that while the suite loads it.
  }, 120_000);

  it("runs the package README's mock LLM example as written, through import", async () => {
    writeFileSync(join(project, "example.mjs"), readmeExample(join(ROOT, "docs/package-README.md"), "mock-llm"));
    expect(await node(["example.mjs"])).toBe("I found package.json.\n2 model requests\n");
  });

  it("runs a query against the mock LLM through require()", async () => {
    writeFileSync(
      join(project, "required.cjs"),
      `const { query, GyreError } = require("gyre");
const { mockTurn, startMockLLM } = require("gyre/testing");
(async () => {
  const server = await startMockLLM({ script: { turns: [mockTurn.text("Hello from require.")] } });
  try {
    for await (const message of query({ prompt: "hi", options: { env: server.env(), persistSession: false } }))
      if (message.type === "result") console.log(message.subtype, message.result, typeof GyreError);
  } finally {
    await server.close();
  }
})();
`,
    );
    expect(await node(["required.cjs"])).toBe("success Hello from require. function\n");
  });

  it("says which package to install when a PostgreSQL store is opened without pg", async () => {
    writeFileSync(
      join(project, "postgres.mjs"),
      `import { openPostgresSessionStore } from "gyre";
try {
  await openPostgresSessionStore({ connectionString: "postgres://127.0.0.1:1/none" });
} catch (error) {
  console.log(error.name, error.code, error.message);
}
`,
    );
    expect(await node(["postgres.mjs"])).toBe(
      "GyreError missing_dependency openPostgresSessionStore needs the `pg` package: npm install pg\n",
    );
  });
});
