// Bundle the CLI into dist/bin/ so `gyre` starts fast: one ESM graph of a few chunks loads
// far quicker than hundreds of small modules (measured in bench/cli.bench.mjs). Native
// addons and pg stay external; provider packages stay separate chunks, loaded on demand.
import { chmodSync, rmSync } from "node:fs";
import { build } from "esbuild";

/**
 * `import { z } from "zod"` hands out zod's whole namespace object, so a bundler keeps all
 * ~40 of its error-message locales (over half of zod's bundled size, parsed at every
 * start). Gyre and its dependencies only use the default English messages, which zod
 * imports directly; `z.locales` in the CLI bundle therefore offers English alone.
 */
const zodEnglishOnly = {
  name: "zod-english-only",
  setup(build) {
    build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](core|classic)$/.test(args.resolveDir)
        ? { path: "zod-locales", namespace: "zod-english-only", pluginData: args.resolveDir }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod-english-only" }, (args) => ({
      contents: 'export { default as en } from "../locales/en.js";',
      resolveDir: args.pluginData,
      loader: "js",
    }));
  },
};

/**
 * The AI SDK's provider-utils import zod 3 only for `ZodFirstPartyTypeKind`, an enum it
 * reads when handed a zod 3 schema (Gyre's are zod 4), yet bundling that import keeps all
 * of zod 3's classes, loaded with every provider. The enum is copied in at build time; an
 * import of anything else from zod/v3 fails the build ("No matching export").
 */
const { ZodFirstPartyTypeKind } = await import("zod/v3");
const zod3EnumOnly = {
  name: "zod3-enum-only",
  setup(build) {
    build.onResolve({ filter: /^zod\/v3$/ }, (args) =>
      /[\\/]@ai-sdk[\\/]provider-utils[\\/]/.test(args.importer)
        ? { path: "zod-v3", namespace: "zod3-enum-only" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "zod3-enum-only" }, () => ({
      contents: `export const ZodFirstPartyTypeKind = ${JSON.stringify(ZodFirstPartyTypeKind)};`,
      loader: "js",
    }));
  },
};

rmSync("dist/bin", { recursive: true, force: true });
await build({
  entryPoints: { gyre: "src/cli/main.ts" },
  outdir: "dist/bin",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "@lydell/node-pty", "pg"],
  banner: { js: "import { createRequire as __gyreRequire } from 'node:module'; const require = __gyreRequire(import.meta.url);" },
  plugins: [zodEnglishOnly, zod3EnumOnly],
  minify: true,
  logLevel: "warning",
});
chmodSync("dist/bin/gyre.js", 0o755);
