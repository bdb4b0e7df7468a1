import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import { findTrustedFolder, listTrustedFolders, trustFolder, trustStorePath, untrustFolder } from "./trust.js";

let root: string;
let home: string;
let project: string;
const now = () => new Date("2025-01-02T03:04:05.000Z");

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), "gyre-trust-")));
  home = path.join(root, "home");
  project = path.join(root, "src", "project");
  mkdirSync(home);
  mkdirSync(path.join(project, "sub"), { recursive: true });
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

async function failure(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.catch((caught: unknown) => caught);
  expect(isGyreError(error, "config_error")).toBe(true);
  return error as Error;
}

describe("trust store", () => {
  it("records a folder by real path in the home's .gyre/trusted-folders.json", async () => {
    const link = path.join(root, "link");
    symlinkSync(project, link);
    const outcome = await trustFolder(link, { home, now });
    expect(outcome).toEqual({ added: true, folder: { path: project, trustedAt: "2025-01-02T03:04:05.000Z" } });
    const file = trustStorePath({ home });
    expect(file).toBe(path.join(home, ".gyre", "trusted-folders.json"));
    expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ version: 1, folders: [outcome.folder] });
    // Only the person may read or change what they trust; no temporary file is left behind.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(path.dirname(file))).toEqual(["trusted-folders.json"]);
  });

  it("lives in Gyre's data folder ($GYRE_HOME) when no home is given, like everything else Gyre writes", () => {
    const saved = process.env.GYRE_HOME;
    process.env.GYRE_HOME = path.join(root, "data");
    try {
      expect(trustStorePath()).toBe(path.join(root, "data", "trusted-folders.json"));
    } finally {
      process.env.GYRE_HOME = saved;
    }
    expect(trustStorePath({ dataFolder: path.join(root, "elsewhere"), home })).toBe(
      path.join(root, "elsewhere", "trusted-folders.json"),
    );
  });

  it("reads the home folder's earlier record while the data folder has none; the first change moves the list there", async () => {
    const dataFolder = path.join(root, "data");
    const earlier = await trustFolder(project, { home, now });
    const earlierFile = trustStorePath({ home });
    const options = { home, dataFolder, now };
    // Nothing trusted so far is lost.
    expect((await findTrustedFolder(project, options))?.path).toBe(project);
    expect(await listTrustedFolders(options)).toEqual([earlier.folder]);
    // Trusting another folder writes the whole list to the data folder.
    const other = path.join(root, "other");
    mkdirSync(other);
    await trustFolder(other, options);
    expect(
      JSON.parse(readFileSync(trustStorePath(options), "utf8")).folders.map((f: { path: string }) => f.path),
    ).toEqual([project, other]);
    // From then on the data folder's record is the one: untrusting there holds, whatever the earlier file says.
    expect((await untrustFolder(project, options)).removed?.path).toBe(project);
    expect(await findTrustedFolder(project, options)).toBeUndefined();
    expect(JSON.parse(readFileSync(earlierFile, "utf8")).folders).toEqual([earlier.folder]);
  });

  it("covers subfolders but not parents, siblings or folders sharing a name prefix", async () => {
    await trustFolder(project, { home, now });
    expect((await findTrustedFolder(path.join(project, "sub"), { home }))?.path).toBe(project);
    expect(await findTrustedFolder(path.join(project, "sub", "not-yet-created"), { home })).toBeDefined();
    mkdirSync(`${project}2`);
    expect(await findTrustedFolder(`${project}2`, { home })).toBeUndefined();
    expect(await findTrustedFolder(path.dirname(project), { home })).toBeUndefined();
  });

  it("keeps existing records and does not add one already covered by a parent", async () => {
    const other = path.join(root, "other");
    mkdirSync(other);
    await trustFolder(project, { home, now });
    await trustFolder(other, { home, now });
    const again = await trustFolder(path.join(project, "sub"), { home, now });
    expect(again).toEqual({ added: false, folder: { path: project, trustedAt: now().toISOString() } });
    expect((await listTrustedFolders({ home })).map((folder) => folder.path)).toEqual([project, other]);
  });

  it("refuses to trust the home folder or a folder that contains it", async () => {
    for (const folder of [home, root, "/"]) {
      expect((await failure(trustFolder(folder, { home }))).message).toContain("home folder");
    }
    expect(await listTrustedFolders({ home })).toEqual([]);
  });

  it("refuses a folder that does not exist or is a file", async () => {
    expect((await failure(trustFolder(path.join(root, "missing"), { home }))).message).toContain("missing");
    const file = path.join(root, "file.txt");
    writeFileSync(file, "");
    expect((await failure(trustFolder(file, { home }))).message).toContain("not a folder");
  });

  it("untrusts a folder's own record and says when a parent still covers it", async () => {
    await trustFolder(project, { home, now });
    expect(await untrustFolder(path.join(project, "sub"), { home })).toEqual({
      stillTrustedBy: { path: project, trustedAt: now().toISOString() },
    });
    expect(await untrustFolder(project, { home })).toEqual({
      removed: { path: project, trustedAt: now().toISOString() },
    });
    expect(await findTrustedFolder(project, { home })).toBeUndefined();
    expect(await untrustFolder(project, { home })).toEqual({});
  });

  it.each([
    ["not JSON", "{"],
    ["a wrong shape", JSON.stringify({ version: 1, folders: [{ path: 1 }] })],
    ["a relative path", JSON.stringify({ version: 1, folders: [{ path: "src", trustedAt: "x" }] })],
  ])("fails with a config_error naming the record when it holds %s", async (_name, text) => {
    mkdirSync(path.join(home, ".gyre"));
    writeFileSync(trustStorePath({ home }), text);
    expect((await failure(findTrustedFolder(project, { home }))).message).toContain(trustStorePath({ home }));
    // A broken record is never overwritten by a new one that would forget what it held.
    await failure(trustFolder(project, { home }));
    expect(readFileSync(trustStorePath({ home }), "utf8")).toBe(text);
  });
});
