// The bundler's changes to third-party code (scripts/bundle-patches.mjs) warn and leave the code
// as it is when a dependency no longer has what they change; this test fails then instead, for
// every installed copy of the code, and checks the built bundles hold no unchanged copy.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

interface Patch {
  apply(source: string): string | undefined;
}
// A build script without type declarations, imported by its URL as test/compat-peers.ts does.
const { headersWithoutUndici, jsonEventStreamInOneStage } = (await import(
  new URL("../scripts/bundle-patches.mjs", import.meta.url).href
)) as { headersWithoutUndici: Patch; jsonEventStreamInOneStage: Patch };

/** Every copy of @ai-sdk/provider-utils under `modules` (a node_modules folder), nested ones too. */
function providerUtilsCopies(modules = "node_modules"): string[] {
  const found: string[] = [];
  const packages = readdirSync(modules, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .flatMap((entry) =>
      entry.name.startsWith("@")
        ? readdirSync(join(modules, entry.name)).map((name) => join(modules, entry.name, name))
        : [join(modules, entry.name)],
    );
  for (const dir of packages) {
    if (dir.endsWith(join("@ai-sdk", "provider-utils"))) found.push(join(dir, "dist", "index.mjs"));
    if (existsSync(join(dir, "node_modules"))) found.push(...providerUtilsCopies(join(dir, "node_modules")));
  }
  return found;
}

/** provider-utils' three-stage reader as esbuild minifies it. */
const THREE_STAGES =
  /pipeThrough\(new TextDecoderStream\)\.pipeThrough\(new [\w$.]+\)\.pipeThrough\(new TransformStream\(\{async transform\(\{data:/;

describe("the bundler's patches", () => {
  const copies = providerUtilsCopies();

  it("find what they change in every copy of provider-utils", () => {
    expect(copies.length).toBeGreaterThan(1);
    for (const file of copies) {
      const source = readFileSync(file, "utf8");
      const oneStage = jsonEventStreamInOneStage.apply(source);
      expect(oneStage, file).toBeDefined();
      expect(oneStage).not.toContain("new EventSourceParserStream()");
      expect(oneStage).toContain("__gyreJsonEventStream((text) => safeParseJSON({ text, schema }))");
      const plainHeaders = headersWithoutUndici.apply(source);
      expect(plainHeaders, file).toBeDefined();
      expect(plainHeaders).not.toContain("new Headers(normalizeHeaders(headers))");
    }
  });

  it("leave no three-stage event-stream reader in the built bundles", () => {
    const bundles = readdirSync("dist/bin").filter((name) => /\.(m?js)$/.test(name));
    expect(bundles.length).toBeGreaterThan(2);
    const unchanged = bundles.filter((name) => THREE_STAGES.test(readFileSync(join("dist/bin", name), "utf8")));
    expect(unchanged).toEqual([]);
  });
});
