// The peer programs that only the compatibility tests drive: Codex CLI, the OpenAI Agents SDK,
// the Claude Agent SDK's declarations and Bun (for the Open Responses compliance suite), and
// TypeDoc, which generates the API reference (npm run docs:api), and the OpenTelemetry SDK and OTLP
// exporters (optional peers of the CLI, for the telemetry tests). They
// are not devDependencies: together they would add ~930 MB to every `npm ci` (Codex's binary
// alone is 400 MB) and the Agents SDK's openai 7 declares Node >= 22. Each is pinned by
// test/compat/NAME/package.json and its lockfile and installed here with `npm ci` into a cache
// folder outside the checkout, once per lockfile, so fresh clones (npm run test:node-versions)
// and other checkouts share it. `npm test` and .ci/run run this first; test/compat-peers.ts
// finds the installs, and a test whose peer is missing fails saying to run this.
//
// Usage: npm run compat:install [-- NAME ...]     (default: every peer but the on-demand claude-code)
// The cache folder: $GYRE_COMPAT_DIR, else $XDG_CACHE_HOME/gyre-compat, else ~/.cache/gyre-compat.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const run = promisify(execFile);
const SPECS = fileURLToPath(new URL("../test/compat/", import.meta.url));

/** Every peer: what it is, its main package, and the flags its `npm ci` needs beyond the lockfile. */
export const PEERS = {
  codex: { title: "Codex CLI", main: "@openai/codex", npmFlags: [] },
  "agents-sdk": { title: "The OpenAI Agents SDK", main: "@openai/agents", npmFlags: [] },
  // Only its .d.ts files are read: its optional per-platform package is a 360 MB Claude Code binary.
  "claude-agent-sdk": {
    title: "The Claude Agent SDK",
    main: "@anthropic-ai/claude-agent-sdk",
    npmFlags: ["--omit=optional", "--ignore-scripts"],
  },
  "openresponses-suite": { title: "Bun for the Open Responses compliance suite", main: "bun", npmFlags: [] },
  "mcp-filesystem": {
    title: "The filesystem MCP server",
    main: "@modelcontextprotocol/server-filesystem",
    npmFlags: [],
  },
  // Not a peer of a compatibility test but a tool installed the same way: `npm run docs:api`
  // generates docs/api/ with it, and test/docs-api.test.ts checks that it does.
  typedoc: { title: "TypeDoc, the API reference's generator", main: "typedoc", npmFlags: [] },
  // The OpenTelemetry SDK and OTLP exporters the CLI loads when tracing is on: optional peers of
  // Gyre's, so the telemetry tests install them here.
  "otel-sdk": { title: "The OpenTelemetry SDK and OTLP exporters", main: "@opentelemetry/sdk-trace", npmFlags: [] },
  // Playwright's driver (no browsers of its own: the tests drive Debian's chromium), for the
  // browser tests of `gyre ui` (test/ui*.test.ts); ~9 MB kept out of node_modules.
  "playwright-core": {
    title: "Playwright's driver for the gyre ui browser tests",
    main: "playwright-core",
    npmFlags: [],
  },
  // Not a test's peer: the baseline `npm run bench` measures `gyre run` against (bench/cli.bench.mjs).
  // Its platform binary is ~240 MB, so it is installed only when named (or by the bench), never by
  // `npm test` or CI; its install script only links that binary, which the bench runs directly.
  "claude-code": {
    title: "Claude Code, the CLI benchmark's baseline",
    main: "@anthropic-ai/claude-code",
    npmFlags: ["--ignore-scripts"],
    onDemand: true,
  },
};

/** The peers `npm run compat:install` installs when none is named: all but the on-demand ones. */
export const DEFAULT_PEERS = Object.keys(PEERS).filter((name) => !PEERS[name].onDemand);

/** Claude Code's binary for this platform in its install, as its own launcher would pick it. */
export function claudeCodeBinary(dir) {
  const libc = process.platform === "linux" && !process.report?.getReport().header.glibcVersionRuntime ? "-musl" : "";
  const platform = `${process.platform === "win32" ? "win32" : process.platform}-${process.arch}${libc}`;
  return join(
    dir,
    "node_modules",
    "@anthropic-ai",
    `claude-code-${platform}`,
    process.platform === "win32" ? "claude.exe" : "claude",
  );
}

/** The cache folder every checkout shares. */
export function compatRoot() {
  return process.env.GYRE_COMPAT_DIR || join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "gyre-compat");
}

/** Where `name` is installed: named after its lockfile, so a change of pins installs afresh beside the old. */
export function peerDir(name) {
  const peer = PEERS[name];
  if (!peer) throw new Error(`compat: no peer named ${name} (peers: ${Object.keys(PEERS).join(", ")})`);
  const hash = createHash("sha256");
  for (const file of ["package.json", "package-lock.json"]) hash.update(readFileSync(join(SPECS, name, file)));
  hash.update(JSON.stringify(peer.npmFlags));
  return join(compatRoot(), `${name}-${hash.digest("hex").slice(0, 12)}`);
}

/** Installs `name` unless it is there; resolves with its folder and whether it was installed now. */
export async function installPeer(name) {
  const dir = peerDir(name);
  if (existsSync(dir)) return { dir, installed: false };
  mkdirSync(compatRoot(), { recursive: true });
  // Installed beside its final place and renamed once it works: a folder there is a whole install.
  const work = mkdtempSync(join(compatRoot(), `.${name}-`));
  try {
    for (const file of ["package.json", "package-lock.json"]) copyFileSync(join(SPECS, name, file), join(work, file));
    await npm(["ci", "--no-audit", "--no-fund", ...PEERS[name].npmFlags], work);
    await check(name, work);
    chmodSync(work, 0o755);
    try {
      renameSync(work, dir);
    } catch (error) {
      // Another process installed the same lockfile meanwhile: its install stands.
      if (!existsSync(dir)) throw error;
      rmSync(work, { recursive: true, force: true });
    }
    return { dir, installed: true };
  } catch (error) {
    rmSync(work, { recursive: true, force: true });
    throw error;
  }
}

/** The npm that runs this script (`npm run`), else the one on PATH. */
async function npm(args, cwd) {
  const [command, prefix] = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath]] : ["npm", []];
  try {
    await run(command, [...prefix, ...args], { cwd, maxBuffer: 64 * 1024 * 1024 });
  } catch (error) {
    const output = `${error.stdout ?? ""}${error.stderr ?? ""}`.trim().split("\n").slice(-30).join("\n");
    throw new Error(`npm ${args.join(" ")} failed:\n${output || error.message}`, { cause: error });
  }
}

/** The installed programs start: a peer that installed but cannot run is not installed. */
async function check(name, dir) {
  const main = join(dir, "node_modules", PEERS[name].main, "package.json");
  if (!existsSync(main)) throw new Error(`${PEERS[name].main} is missing from ${dir}`);
  const bin = (program) => join(dir, "node_modules", ".bin", program);
  if (name === "codex") await run(bin("codex"), ["--version"]);
  if (name === "claude-code") await run(claudeCodeBinary(dir), ["--version"]);
  if (name === "openresponses-suite") {
    // Bun's postinstall puts its native binary in place; where npm skipped it, run it here.
    await run(bin("bun"), ["--version"]).catch(() =>
      run(process.execPath, ["install.js"], { cwd: join(dir, "node_modules", "bun") }),
    );
    await run(bin("bun"), ["--version"]);
  }
}

async function main(names) {
  const unknown = names.filter((name) => !(name in PEERS));
  if (unknown.length > 0) {
    console.error(`compat: no peer named ${unknown.join(", ")} (peers: ${Object.keys(PEERS).join(", ")})`);
    return 2;
  }
  let failed = 0;
  for (const name of names.length > 0 ? names : DEFAULT_PEERS) {
    const started = Date.now();
    try {
      const { dir, installed } = await installPeer(name);
      const how = installed ? `installed in ${Math.round((Date.now() - started) / 1000)} s` : "already installed";
      console.log(`compat: ${name}: ${how}, ${dir}`);
    } catch (error) {
      failed++;
      console.error(`compat: ${name}: ${PEERS[name].title} could not be installed: ${error.message}`);
    }
  }
  return failed === 0 ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = await main(process.argv.slice(2));
