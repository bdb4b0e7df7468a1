import { chmodSync, mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { gyreCommand } from "./gyre-command.js";

/** A folder with an executable file `gyre.js` in `dist/bin`, as a checkout or an install holds it. */
function installed(under: string): string {
  const bin = path.join(under, "dist", "bin", "gyre.js");
  mkdirSync(path.dirname(bin), { recursive: true });
  writeFileSync(bin, "#!/usr/bin/env node\n");
  chmodSync(bin, 0o755);
  return bin;
}

describe("gyreCommand", () => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-command-")));

  it("is gyre when the PATH finds this very program (npm link, a global install)", () => {
    const bin = installed(path.join(root, "global"));
    const folder = path.join(root, "global-bin");
    mkdirSync(folder);
    symlinkSync(bin, path.join(folder, "gyre"));
    expect(gyreCommand(path.join(folder, "gyre"), `/nowhere${path.delimiter}${folder}`)).toBe("gyre");
  });

  it("is node and the executable's path in a checkout, where no gyre on the PATH is this one", () => {
    const bin = installed(path.join(root, "checkout"));
    const other = installed(path.join(root, "other"));
    const folder = path.join(root, "other-bin");
    mkdirSync(folder);
    symlinkSync(other, path.join(folder, "gyre"));
    expect(gyreCommand(bin, folder)).toBe(`node ${bin}`);
  });

  it("is npx gyre for a project's dependency", () => {
    const bin = installed(path.join(root, "app", "node_modules", "gyre"));
    expect(gyreCommand(bin, "")).toBe("npx gyre");
  });
});
