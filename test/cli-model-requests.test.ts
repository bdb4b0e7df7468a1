import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { cliEnv, FORMATS, mockEnv, runQuery, withMock } from "./helpers.js";

// The CLI's model requests go through node:http (src/net/node-fetch.ts) with the AI SDK's
// header code patched off fetch's Headers (scripts/bundle-cli.mjs): what reaches the provider
// must be what the AI SDK sends through fetch, and Node's undici must not be loaded at all.

const run = promisify(execFile);
const CLI = resolve("dist/bin/gyre.js");
let dir: string;
let preload: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-cli-requests-"));
  // Tells, as the process exits, whether Node loaded its bundled undici (fetch, Headers).
  preload = join(dir, "undici-loaded.cjs");
  writeFileSync(
    preload,
    'process.on("exit", () => process.stderr.write(`undici loaded: ${process.moduleLoadList.some((m) => m.includes("undici"))}\\n`));\n',
  );
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(FORMATS)("gyre run's request to $name", (format) => {
  it("carries the AI SDK's headers and body, and the run never loads undici", async () => {
    await withMock({ turns: [mockTurn.text("hello there")] }, async (server) => {
      const { stdout, stderr } = await run(
        process.execPath,
        ["-r", preload, CLI, "run", "hi", "--model", format.model, "--cwd", dir, "--setting-sources", ""],
        { env: cliEnv(mockEnv(server)) },
      );
      expect(stdout.trim()).toBe("hello there");
      expect(stderr).toContain("undici loaded: false");
      const [request] = server.requests;
      expect(request?.headers["content-type"]).toBe("application/json");
      expect(String(request?.headers["user-agent"])).toMatch(/ai-sdk\/provider-utils\/[\d.]+ runtime\/node\.js\//);
      expect(request?.headers["content-length"]).toBe(String(Buffer.byteLength(JSON.stringify(request?.body))));
      if (format.name === "anthropic") expect(request?.headers["x-api-key"]).toBeTruthy();
      else expect(String(request?.headers.authorization)).toMatch(/^Bearer /);
      expect(JSON.stringify(request?.body)).toContain('"hi"');
    });
  });
});

describe("gyre run's built-in tools", () => {
  /** Each built-in tool's input schema as the first request of a run sends it, by name. */
  const inputSchemas = (request: { body: Record<string, unknown> } | undefined) =>
    Object.fromEntries(
      ((request?.body.tools ?? []) as Array<{ name: string; input_schema: unknown }>).map((tool) => [
        tool.name,
        tool.input_schema,
      ]),
    );

  // The CLI sends the schemas its bundler converted (src/tools/builtin/bundled-input-schemas.ts);
  // the library converts them at the run's first request: the two must agree, sandboxed or not.
  it.each([
    ["unsandboxed", [] as string[], {}],
    ["sandboxed", ["--sandbox"], { sandbox: { enabled: true } }],
  ] as const)("are sent %s as the library sends them", async (_how, flags, options) => {
    const turns = [mockTurn.text("one"), mockTurn.text("two")];
    await withMock({ mode: "sequential", turns }, async (server) => {
      await run(process.execPath, [CLI, "run", "hi", "--cwd", dir, "--setting-sources", "", ...flags], {
        env: cliEnv(mockEnv(server)),
      });
      await runQuery(server, FORMATS[0], "hi", { cwd: dir, settingSources: [], ...options });
      const [fromCli, fromLibrary] = server.requests.map(inputSchemas);
      expect(Object.keys(fromCli ?? {})).toContain("Bash");
      expect(Object.keys(fromCli ?? {})).toContain("Read");
      const shared = Object.keys(fromLibrary ?? {}).filter((name) => name in (fromCli ?? {}));
      expect(shared.length).toBeGreaterThanOrEqual(10);
      for (const name of shared) expect(fromCli?.[name], name).toEqual(fromLibrary?.[name]);
      const sandboxEscape = JSON.stringify(fromCli?.Bash).includes("dangerouslyDisableSandbox");
      expect(sandboxEscape).toBe(flags.length > 0);
    });
  });
});
