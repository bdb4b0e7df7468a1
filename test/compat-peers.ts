import { existsSync, mkdtempSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The peer programs only the compatibility tests drive (Codex CLI, the OpenAI Agents SDK, the
 * Claude Agent SDK's declarations, Bun) live outside node_modules, installed by
 * `npm run compat:install` (scripts/compat-install.mjs, which `npm test` and .ci/run run) into
 * a shared cache folder. These helpers find them; a peer that is not there fails its test with
 * the command that installs it, so no compatibility test is ever skipped.
 */
export type CompatPeer =
  | "codex"
  | "agents-sdk"
  | "claude-agent-sdk"
  | "openresponses-suite"
  | "mcp-filesystem"
  | "typedoc"
  | "otel-sdk"
  | "playwright-core";

interface CompatInstall {
  PEERS: Record<CompatPeer, { title: string }>;
  peerDir(name: CompatPeer): string;
}

// The install script is the one place that says where a peer goes.
const install = (await import(new URL("../scripts/compat-install.mjs", import.meta.url).href)) as CompatInstall;

/** The folder `name` is installed in (its own package.json and node_modules); throws when it is not installed. */
export function compatPeer(name: CompatPeer): string {
  const dir = install.peerDir(name);
  if (!existsSync(join(dir, "node_modules"))) {
    throw new Error(
      `${install.PEERS[name].title} is not installed for the compatibility tests (looked in ${dir}): ` +
        `run \`npm run compat:install\` (npm test runs it first).`,
    );
  }
  return dir;
}

/** A program of `name`'s from its node_modules/.bin. */
export function compatBin(name: CompatPeer, program: string): string {
  return join(compatPeer(name), "node_modules", ".bin", program);
}

/** `require(specifier)` as a program installed beside `name` would: the peer's own copy and its dependencies. */
export function compatRequire(name: CompatPeer, specifier: string): unknown {
  return createRequire(join(compatPeer(name), "package.json"))(specifier);
}

/**
 * A scratch folder whose node_modules is `name`'s (a link): for tools that take a folder of their
 * own and resolve packages from it, while the shared install stays untouched.
 */
export function folderWithPeer(name: CompatPeer, prefix: string): string {
  const modules = join(compatPeer(name), "node_modules");
  const dir = mkdtempSync(join(tmpdir(), prefix));
  symlinkSync(modules, join(dir, "node_modules"), "dir");
  return dir;
}
