import { mkdir, mkdtemp, readdir, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { defaultOAuthFolder, OAuthTokenStore } from "./token-store.js";

const url = "https://mcp.example.com/mcp";
const tokens = { access_token: "a", token_type: "bearer", refresh_token: "r" };

async function freshStore() {
  return new OAuthTokenStore(join(await mkdtemp(join(tmpdir(), "gyre-oauth-")), "mcp-oauth"));
}

describe("OAuthTokenStore", () => {
  it("keeps a record per server URL in a 0600 file inside a 0700 folder, and leaves no temp file", async () => {
    const store = await freshStore();
    await store.update(url, (record) => ({ ...record, tokens }));
    expect(await store.read(url)).toEqual({ serverUrl: url, tokens });
    expect(await store.read("https://mcp.example.com/other")).toBeUndefined();
    expect((await stat(store.pathOf(url))).mode & 0o777).toBe(0o600);
    expect((await stat(store.folder)).mode & 0o777).toBe(0o700);
    expect(await readdir(store.folder)).toEqual([store.pathOf(url).split("/").at(-1)]);
  });

  it("treats a corrupt file, a file of the wrong shape, or another URL's record as absent", async () => {
    const store = await freshStore();
    await store.update(url, (record) => ({ ...record, tokens }));
    for (const text of ["{ nope", "[]", JSON.stringify({ serverUrl: url, tokens: { access_token: 5 } })]) {
      await writeFile(store.pathOf(url), text);
      expect(await store.read(url)).toBeUndefined();
    }
    await writeFile(store.pathOf(url), JSON.stringify({ serverUrl: "https://elsewhere.example/mcp", tokens }));
    expect(await store.read(url)).toBeUndefined();
  });

  it("narrows a folder others could read to 0700 on write", async () => {
    const store = await freshStore();
    await mkdir(store.folder, { mode: 0o755 });
    await store.update(url, (record) => ({ ...record, tokens }));
    expect((await stat(store.folder)).mode & 0o777).toBe(0o700);
  });

  it("remove forgets the record; removing nothing is fine", async () => {
    const store = await freshStore();
    await store.update(url, (record) => ({ ...record, tokens }));
    await store.remove(url);
    await store.remove(url);
    expect(await store.read(url)).toBeUndefined();
  });

  it("lives in GYRE_HOME/mcp-oauth, else ~/.gyre/mcp-oauth", () => {
    expect(defaultOAuthFolder({ GYRE_HOME: "/tmp/gh" })).toBe("/tmp/gh/mcp-oauth");
    expect(defaultOAuthFolder({ HOME: "/home/u" })).toMatch(/\.gyre\/mcp-oauth$/);
  });
});
