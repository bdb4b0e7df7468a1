import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { readmeExample } from "./readme-examples.js";

const run = promisify(execFile);
const temp = mkdtempSync(join(tmpdir(), "gyre-readme-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

describe("the mock LLM example of docs/testing.md and the package README", () => {
  const example = readmeExample("docs/testing.md", "mock-llm");

  it("is the same code in docs/testing.md and the package README", () => {
    expect(readmeExample("docs/package-README.md", "mock-llm")).toBe(example);
  });

  it("runs against the built package and prints the scripted answer after the tool turn", async () => {
    if (!existsSync("dist/index.js")) throw new Error("dist/ is missing: run `npm run build` first (npm test does)");
    // The block as written; only its two import specifiers point at this checkout's build.
    const code = example
      .replace(/from "gyre"/g, `from ${JSON.stringify(pathToFileURL(resolve("dist/index.js")).href)}`)
      .replace(/from "gyre\/testing"/g, `from ${JSON.stringify(pathToFileURL(resolve("dist/testing/index.js")).href)}`);
    expect(code).not.toContain('"gyre');
    writeFileSync(join(temp, "example.mjs"), code);
    writeFileSync(join(temp, "package.json"), "{}\n");
    const { stdout } = await run(process.execPath, ["example.mjs"], { cwd: temp });
    expect(stdout).toBe("I found package.json.\n2 model requests\n");
  });
});
