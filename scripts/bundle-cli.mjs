// Bundle the CLI into dist/bin/ so `gyre` starts fast. The CLI (src/cli/main.ts) becomes
// CommonJS files, cli-<hash>.js, split so that a command loads only what it uses: a few files
// load far quicker than hundreds of small modules, and, unlike an ES module on Node 20, a
// script can be compiled with V8's code cache. dist/bin/gyre.js (src/cli/launch.ts) starts it
// through that cache (bench/cli.bench.mjs measures both). Native addons and pg stay external;
// better-sqlite3 is required at the first open of a SQLite store (src/sessions/sqlite-driver.ts),
// web-tree-sitter once the model answers a run with the Bash tool (src/run/setup.ts).
// GYRE_BUNDLE_SOURCEMAP=1 writes source maps beside the CLI's files, for reading a CPU profile.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { build } from "esbuild";
import { headersWithoutUndici, jsonEventStreamInOneStage, patchedProviderUtils } from "./bundle-patches.mjs";

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

/**
 * fdir (tinyglobby's crawler) loads picomatch at start with a runtime `require`, which
 * resolves and compiles it from node_modules (~5 ms) though the bundle holds it already.
 * Its bundled copy is handed over instead; if fdir changes that code, the build warns and
 * leaves fdir as it is.
 */
const fdirBundledPicomatch = {
  name: "fdir-bundled-picomatch",
  setup(build) {
    build.onLoad({ filter: /[\\/]fdir[\\/]dist[\\/]index\.mjs$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const lookup = /__require\.resolve\("picomatch"\);\s*pm = __require\("picomatch"\);/;
      if (!lookup.test(source)) {
        return { contents: source, loader: "js", warnings: [{ text: "fdir no longer loads picomatch as expected" }] };
      }
      return {
        contents: `import __bundledPicomatch from "picomatch";\n${source.replace(lookup, "pm = __bundledPicomatch;")}`,
        loader: "js",
      };
    });
  },
};

/**
 * web-tree-sitter's ES module build loads `module` and `fs/promises` with dynamic
 * `import()`, which a script run from V8's code cache cannot do on Node 20
 * (ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): the CLI bundles its CommonJS build instead.
 */
const require = createRequire(import.meta.url);
const webTreeSitterCommonJs = {
  name: "web-tree-sitter-cjs",
  setup(build) {
    build.onResolve({ filter: /^web-tree-sitter$/ }, () => ({ path: require.resolve("web-tree-sitter") }));
  },
};

/**
 * Ink connects to React DevTools only when DEV=true, through `import("./devtools.js")`, which
 * imports react-devtools-core (not installed). Bundled, that import would be hoisted and fail
 * at every start: the devtools module is left out instead.
 */
const inkWithoutDevtools = {
  name: "ink-without-devtools",
  setup(build) {
    build.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      /[\\/]ink[\\/]build$/.test(args.resolveDir)
        ? { path: "ink-devtools", namespace: "ink-without-devtools" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "ink-without-devtools" }, () => ({
      contents: 'throw new Error("gyre: React DevTools are not bundled");',
      loader: "js",
    }));
  },
};

/**
 * Ink draws only the last frame, at exit, when the CI variable is set (is-in-ci), to keep
 * build logs short. The interactive agent always runs on a terminal, and a terminal in a shell
 * with CI set (a CI job's tmux, a dev container) would stay blank: Ink counts as in CI only
 * when its output is not a terminal.
 */
const inkCiOnlyWithoutTerminal = {
  name: "ink-ci-only-without-terminal",
  setup(build) {
    build.onResolve({ filter: /^is-in-ci$/ }, (args) =>
      /[\\/]ink[\\/]build[\\/]/.test(args.importer) ? { path: "is-in-ci", namespace: "ink-ci" } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "ink-ci" }, () => ({
      contents:
        'const set = (key) => key in process.env && process.env[key] !== "0" && process.env[key] !== "false";\n' +
        'export default !process.stdout.isTTY && (set("CI") || set("CONTINUOUS_INTEGRATION"));',
      loader: "js",
    }));
  },
};

/**
 * For the same reason, chalk (Ink's colours) has none when CI is set, even on a terminal: its
 * supports-color skips that check for a terminal here. If chalk changes that code, the build
 * warns and leaves it as it is.
 */
const chalkCiOnlyWithoutTerminal = {
  name: "chalk-ci-only-without-terminal",
  setup(build) {
    build.onLoad({ filter: /[\\/]chalk[\\/]source[\\/]vendor[\\/]supports-color[\\/]index\.js$/ }, async (args) => {
      const source = await readFile(args.path, "utf8");
      const check = "if ('CI' in env) {";
      if (!source.includes(check)) {
        return {
          contents: source,
          loader: "js",
          warnings: [{ text: "chalk's supports-color no longer checks CI as expected" }],
        };
      }
      return { contents: source.replace(check, "if ('CI' in env && !streamIsTTY) {"), loader: "js" };
    });
  },
};

/**
 * With code splitting, a package imported lazily (`await import("yaml")`) becomes a file of its
 * own whose exports esbuild must name when it builds it; for a CommonJS package it names only
 * `default` (module.exports), and `const { parse } = await import("yaml")` would find nothing.
 * Such an import gets a module naming the package's exports, read by loading it here.
 */
const lazyCommonJsNamedExports = {
  name: "lazy-commonjs-named-exports",
  setup(build) {
    build.onResolve({ filter: /^[@a-z]/ }, async (args) => {
      if (args.kind !== "dynamic-import" || args.pluginData === "resolving") return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "resolving",
      });
      if (resolved.errors.length > 0 || resolved.external || !isCommonJs(resolved.path)) return undefined;
      return { path: resolved.path, namespace: "lazy-commonjs" };
    });
    build.onLoad({ filter: /.*/, namespace: "lazy-commonjs" }, (args) => {
      const names = Object.keys(require(args.path)).filter(
        (name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== "default",
      );
      return {
        contents:
          // require, not a default import: a package compiled with `__esModule` (node-html-markdown)
          // would get its `exports.default`, where Node's import() gives `module.exports`.
          `const commonJs = require(${JSON.stringify(args.path)});\nexport default commonJs;\n` +
          (names.length > 0 ? `export const { ${names.join(", ")} } = commonJs;\n` : ""),
        resolveDir: dirname(args.path),
        loader: "js",
      };
    });
  },
};

/** Whether Node loads `file` as CommonJS: a .cjs file, or a .js one whose package is not "type": "module". */
function isCommonJs(file) {
  if (file.endsWith(".cjs")) return true;
  if (!file.endsWith(".js")) return false;
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    const manifest = join(folder, "package.json");
    if (existsSync(manifest)) return JSON.parse(readFileSync(manifest, "utf8")).type !== "module";
  }
  return true;
}

/**
 * A lazy `import("./cli-….js")` of a sibling file of the split CLI becomes a `require` of it
 * (still asynchronous, as import() is), so that it loads as CommonJS, through the code cache.
 */
const siblingImportsAsRequire = {
  name: "sibling-imports-as-require",
  setup(build) {
    build.onLoad({ filter: /[\\/]cli-[A-Z0-9]+\.js$/ }, async (args) => ({
      contents: (await readFile(args.path, "utf8")).replace(
        /\bimport\(("\.\/cli-[A-Z0-9]+\.js")\)/g,
        "Promise.resolve().then(() => require($1))",
      ),
      loader: "js",
    }));
  },
};

rmSync("dist/bin", { recursive: true, force: true });
mkdirSync("dist/bin", { recursive: true });
// Every .js file in dist/bin is CommonJS (the launcher and the CLI's files); the terminal UI is .mjs.
writeFileSync("dist/bin/package.json", '{ "type": "commonjs" }\n');

/**
 * The built-in tools' input JSON Schemas, converted here from the library just built (dist/) as a
 * registry converts them (src/tools/builtin/bundled-input-schemas.ts), so a start of the CLI does
 * not (~5 ms of zod before its first model request). Bash's input differs when commands run
 * sandboxed: both are kept. test/cli-model-requests.test.ts checks the CLI sends what the library does.
 */
async function builtinInputSchemas() {
  const { defaultTools } = await import("../dist/tools/builtin/index.js");
  const { bashTools } = await import("../dist/tools/builtin/bash/index.js");
  const { toJsonSchema } = await import("../dist/tools/registry.js");
  const schemas = {};
  for (const tool of defaultTools({ cwd: "/" })) schemas[tool.name] = toJsonSchema(tool.inputSchema);
  const [sandboxedBash] = bashTools({ sandbox: {} });
  schemas["Bash:sandboxed"] = toJsonSchema(sandboxedBash.inputSchema);
  return schemas;
}

const BUILTIN_INPUT_SCHEMAS = JSON.stringify(await builtinInputSchemas());

/**
 * The CLI is split by esbuild into files loaded as they are needed: the entry (main.ts) holds
 * little more than the argument parsing, each command and each feature it imports lazily (the
 * MCP SDK, the providers, the server, the sandbox, OAuth …) is a file of its own, and code two
 * of them share is a file both require. esbuild splits ES modules only, so each file is then
 * turned into CommonJS (a script, which Node 20 can run from V8's code cache) and a lazy
 * `import("./cli-….js")` of a sibling into a `require` of it, which the launcher serves from
 * the code cache (src/cli/code-cache.ts).
 */
const ESM_STAGE = "dist/bin-esm";
rmSync(ESM_STAGE, { recursive: true, force: true });
const cli = await build({
  entryPoints: { cli: "src/cli/main.ts" },
  // The content hash in the names keys the code cache: a rebuilt CLI never meets stale bytecode.
  entryNames: "[name]-[hash]",
  chunkNames: "cli-[hash]",
  outdir: ESM_STAGE,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "@lydell/node-pty", "pg"],
  // Bundled ES modules that read import.meta.url (fdir's createRequire) get their file's URL;
  // import.meta.resolve (createSdkMcpServer's lazy load) resolves as require does.
  define: {
    "import.meta.url": "__gyreImportMetaUrl",
    "import.meta.resolve": "__gyreImportMetaResolve",
    GYRE_BUILTIN_INPUT_SCHEMAS: BUILTIN_INPUT_SCHEMAS,
  },
  plugins: [
    lazyCommonJsNamedExports,
    zodEnglishOnly,
    zod3EnumOnly,
    fdirBundledPicomatch,
    webTreeSitterCommonJs,
    patchedProviderUtils([headersWithoutUndici, jsonEventStreamInOneStage]),
  ],
  minify: true,
  metafile: true,
  sourcemap: process.env.GYRE_BUNDLE_SOURCEMAP ? "linked" : false,
  logLevel: "warning",
});
const esmFiles = Object.keys(cli.metafile.outputs).filter((file) => file.endsWith(".js"));
await build({
  entryPoints: esmFiles,
  entryNames: "[name]",
  outdir: "dist/bin",
  bundle: false,
  format: "cjs",
  platform: "node",
  target: "node20",
  banner: {
    js:
      'var __gyreImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' +
      'var __gyreImportMetaResolve = (s) => require("node:url").pathToFileURL(require.resolve(s)).href;',
  },
  plugins: [siblingImportsAsRequire],
  minify: true,
  sourcemap: process.env.GYRE_BUNDLE_SOURCEMAP ? "external" : false,
  logLevel: "warning",
});
rmSync(ESM_STAGE, { recursive: true, force: true });
const cliFile = esmFiles.find((file) => cli.metafile.outputs[file].entryPoint === "src/cli/main.ts");
// The interactive agent (`gyre` on a terminal) is an ES module bundle of its own: Ink and its
// layout engine (yoga, with top-level await) need ES modules, and print mode never loads it.
const tui = await build({
  entryPoints: { tui: "src/tui/main.ts" },
  entryNames: "[name]-[hash]",
  outExtension: { ".js": ".mjs" },
  outdir: "dist/bin",
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "@lydell/node-pty", "pg"],
  // Bundled CommonJS modules call require() for Node's own modules; an ES module has none.
  banner: {
    js: 'import { createRequire as __gyreCreateRequire } from "node:module"; const require = __gyreCreateRequire(import.meta.url);',
  },
  plugins: [
    zodEnglishOnly,
    zod3EnumOnly,
    fdirBundledPicomatch,
    patchedProviderUtils([jsonEventStreamInOneStage]),
    inkWithoutDevtools,
    inkCiOnlyWithoutTerminal,
    chalkCiOnlyWithoutTerminal,
  ],
  // React picks its production build by NODE_ENV; the development one is several times larger.
  define: {
    "process.env.NODE_ENV": '"production"',
    GYRE_BUILTIN_INPUT_SCHEMAS: BUILTIN_INPUT_SCHEMAS,
  },
  jsx: "automatic",
  minify: true,
  metafile: true,
  logLevel: "warning",
});
const [tuiFile] = Object.keys(tui.metafile.outputs).filter((file) => file.endsWith(".mjs"));
// The launcher is CommonJS too: Node starts a script faster than an ES module.
await build({
  entryPoints: { gyre: "src/cli/launch.ts" },
  outdir: "dist/bin",
  bundle: true,
  format: "cjs",
  platform: "node",
  target: "node20",
  define: {
    GYRE_CLI_BUNDLE: JSON.stringify(`./${basename(cliFile)}`),
    GYRE_TUI_BUNDLE: JSON.stringify(`./${basename(tuiFile)}`),
  },
  minify: true,
  logLevel: "warning",
});
chmodSync("dist/bin/gyre.js", 0o755);
