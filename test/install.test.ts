import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

// What `npm ci` installs (issue 29): what the library, the CLI and the everyday tests need, on
// every Node Gyre supports without a warning. Its size is checked after a real `npm ci` by
// scripts/check-install.mjs in .ci/run; the peer programs only the compatibility tests drive
// are pinned in test/compat and installed by `npm run compat:install`.

interface LockEntry {
  version?: string;
  engines?: { node?: string };
  hasInstallScript?: boolean;
}
interface PackageJson {
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  allowScripts?: Record<string, boolean>;
}

const check = (await import(new URL("../scripts/check-install.mjs", import.meta.url).href)) as {
  SUPPORTED_NODE: string[];
  engineProblems(lock: { packages: Record<string, LockEntry> }): string[];
};
const readJson = <T>(path: string): T => JSON.parse(readFileSync(path, "utf8")) as T;
const pkg = readJson<PackageJson>("package.json");
const lock = readJson<{ packages: Record<string, LockEntry> }>("package-lock.json");
const { PEERS } = (await import(new URL("../scripts/compat-install.mjs", import.meta.url).href)) as {
  PEERS: Record<string, { main: string }>;
};

describe("npm ci", () => {
  it(`installs no package whose engines leave out Node ${check.SUPPORTED_NODE.join(", ")} (no EBADENGINE)`, () => {
    expect(check.engineProblems(lock)).toEqual([]);
  });

  it("names in allowScripts every package with an install script, so npm neither warns nor skips one", () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([path, entry]) => path && entry.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
    expect([...new Set(withScripts)].sort()).toEqual(Object.keys(pkg.allowScripts ?? {}).sort());
  });

  it("leaves the compatibility tests' peer programs to npm run compat:install, each pinned exactly", () => {
    expect(readdirSync("test/compat").sort()).toEqual(Object.keys(PEERS).sort());
    const ours = { ...pkg.dependencies, ...pkg.devDependencies };
    for (const [name, peer] of Object.entries(PEERS)) {
      expect(ours, `package.json names ${peer.main}`).not.toHaveProperty([peer.main]);
      expect(lock.packages, `package-lock.json installs ${peer.main}`).not.toHaveProperty([
        `node_modules/${peer.main}`,
      ]);
      const pins = readJson<PackageJson>(join("test/compat", name, "package.json")).dependencies ?? {};
      expect(Object.keys(pins)).toContain(peer.main);
      for (const [dependency, version] of Object.entries(pins)) {
        expect(version, `${dependency} in test/compat/${name}`).toMatch(/^\d+\.\d+\.\d+$/);
      }
    }
  });
});
