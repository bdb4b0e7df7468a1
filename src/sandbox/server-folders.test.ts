import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { serverFolders } from "./server-folders.js";

describe("serverFolders", () => {
  it("shows a script's package (lifted to the outermost node_modules' folder), the program's install folder, the cwd", () => {
    const root = mkdtempSync("/tmp/gyre-server-folders-");
    const script = path.join(root, "node_modules", "@scope", "server", "dist", "index.js");
    mkdirSync(path.dirname(script), { recursive: true });
    writeFileSync(path.join(root, "node_modules", "@scope", "server", "package.json"), "{}");
    writeFileSync(script, "");
    const bin = path.join(root, "node", "bin");
    mkdirSync(bin, { recursive: true });
    writeFileSync(path.join(bin, "srv"), "", { mode: 0o755 });
    expect(serverFolders("srv", [script, "--flag", "/tmp"], "/", bin)).toEqual([path.join(root, "node"), root]);
    // Never /tmp itself: a file straight in it is shown alone.
    const loose = path.join("/tmp", `${path.basename(root)}.js`);
    writeFileSync(loose, "");
    expect(serverFolders("/bin/sh", [loose], "/tmp", undefined)).toEqual([loose]);
    rmSync(loose);
    rmSync(root, { recursive: true });
  });
});
