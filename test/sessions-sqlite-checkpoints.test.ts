import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { openSqliteSessionStore } from "../src/sessions/index.js";
import { checkpointInBackground } from "../src/sessions/sqlite-checkpoints.js";
import { prompt } from "./sessions-fixtures.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-sqlite-checkpoints-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const sizeOf = (path: string) => statSync(path).size;

describe("SQLite checkpoints in the background (gyre serve)", () => {
  it("copies the log into the database from a worker while the store's own connection never does", async () => {
    const path = join(dir, "sessions.db");
    const store = openSqliteSessionStore({ path, checkpoints: "background" });
    const empty = sizeOf(path);
    const text = "x".repeat(4000);
    for (let index = 0; index < 200; index++)
      await store.createSession({ id: `s${index}`, cwd: dir }, [prompt(`s${index}`, text)]);
    // Only a checkpoint writes pages into the database file, and this connection makes none.
    await vi.waitFor(() => expect(sizeOf(path)).toBeGreaterThan(empty + 200 * 4000), { timeout: 10_000 });
    await store.close();
    // Everything is there after close: what the worker copied and what only the log held.
    const reopened = openSqliteSessionStore({ path });
    expect((await reopened.listSessions()).length).toBe(200);
    expect(await reopened.getSessionMessages("s199")).toHaveLength(1);
    await reopened.close();
  });

  it("falls back to checkpointing in the caller's connection when the worker cannot run", async () => {
    const path = join(dir, "sessions.db");
    const db = new Database(path);
    db.pragma("journal_mode = WAL");
    // The worker opens a database in a folder that does not exist: it fails at once. Until then
    // the caller's connection leaves checkpoints to it.
    const checkpoints = checkpointInBackground(db, join(dir, "missing", "sessions.db"));
    expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(0);
    await vi.waitFor(() => expect(db.pragma("wal_autocheckpoint", { simple: true })).toBe(1000), {
      timeout: 10_000,
    });
    await checkpoints.stop();
    db.close();
  });

  it("stops: close waits for the worker's last checkpoint, and closing twice is fine", async () => {
    const path = join(dir, "sessions.db");
    const store = openSqliteSessionStore({ path, checkpoints: "background" });
    await store.createSession({ id: "s1", cwd: dir }, [prompt("s1", "hello")]);
    await store.close();
    await store.close();
    // The last connection closed after a full checkpoint: the log is gone and the database has it all.
    expect(existsSync(`${path}-wal`)).toBe(false);
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM sessions").get()).toEqual({ n: 1 });
    db.close();
  });
});
