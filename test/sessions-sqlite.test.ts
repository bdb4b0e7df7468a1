import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type GyreError, isGyreError } from "../src/errors/index.js";
import { initialDeriveState, openSqliteSessionStore } from "../src/sessions/index.js";
import { migrateSqlite, SQLITE_MIGRATIONS } from "../src/sessions/sqlite-migrations.js";
import { assistant, progress, prompt, toolResults, toolUse } from "./sessions-fixtures.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-sqlite-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function openError(path: string): GyreError {
  try {
    openSqliteSessionStore({ path });
  } catch (error) {
    expect(isGyreError(error, "session_store_error")).toBe(true);
    return error as GyreError;
  }
  throw new Error("expected the open to fail");
}

describe("SQLite session store", () => {
  it("creates the user's sessions.db ($GYRE_HOME) in WAL mode by default", async () => {
    const shared = process.env.GYRE_HOME;
    process.env.GYRE_HOME = join(dir, "home");
    const store = openSqliteSessionStore();
    process.env.GYRE_HOME = shared;
    expect(store.path).toBe(join(dir, "home", "sessions.db"));
    await store.createSession({ id: "s1", cwd: dir });
    await store.close();
    const db = new Database(store.path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(db.prepare("SELECT version, name FROM gyre_migrations").all()).toEqual([
      { version: 1, name: expect.any(String) },
      { version: 2, name: expect.any(String) },
      { version: 3, name: expect.any(String) },
      { version: 4, name: expect.any(String) },
      { version: 5, name: expect.any(String) },
    ]);
    db.close();
  });

  it("refuses a file that is not a database, naming it and leaving it untouched", () => {
    const path = join(dir, "sessions.db");
    const garbage = Buffer.from("this is not a database, just some words ".repeat(200));
    writeFileSync(path, garbage);
    const error = openError(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/not a database/);
    expect(readFileSync(path).equals(garbage)).toBe(true);
  });

  it("refuses a database from a newer Gyre", () => {
    const path = join(dir, "sessions.db");
    const db = new Database(path);
    db.exec(
      "CREATE TABLE gyre_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)",
    );
    db.prepare("INSERT INTO gyre_migrations VALUES (99, 'future', 0)").run();
    db.close();
    expect(openError(path).message).toMatch(/version 99 is newer/);
  });

  it("names the file and session when a stored row is unreadable", async () => {
    const path = join(dir, "sessions.db");
    const store = openSqliteSessionStore({ path });
    await store.createSession({ id: "s1", cwd: dir });
    await store.append("s1", prompt("s1", "hello"));
    const db = new Database(path);
    db.prepare("UPDATE session_messages SET data = '{broken' WHERE session_id = 's1'").run();
    db.close();
    const error = await store.getSessionMessages("s1").catch((caught: unknown) => caught);
    expect(isGyreError(error, "session_store_error")).toBe(true);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toContain("session s1");
    await store.close();
  });

  it("runs each migration once, however often the file is opened", async () => {
    const path = join(dir, "sessions.db");
    for (let i = 0; i < 3; i++) await openSqliteSessionStore({ path }).close();
    const db = new Database(path, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM gyre_migrations").get()).toEqual({ n: 5 });
    db.close();
  });

  it("migration 4 keeps a version 3 database's sessions, forks included, as sessions people started", async () => {
    const path = join(dir, "sessions.db");
    const old = new Database(path);
    migrateSqlite(old, SQLITE_MIGRATIONS.slice(0, 3));
    const insert = old.prepare(
      "INSERT INTO sessions (id, cwd, title, created_at, updated_at, parent_id, forked_from_message, state, project) " +
        "VALUES (?, '/repo', NULL, ?, ?, ?, NULL, ?, '/repo')",
    );
    insert.run("root", 1, 1, null, JSON.stringify(initialDeriveState(null)));
    insert.run("fork", 2, 2, "root", JSON.stringify(initialDeriveState(null)));
    old.close();
    const store = openSqliteSessionStore({ path });
    try {
      expect((await store.listSessions({ project: "/repo" })).map((s) => [s.id, s.parentToolUseId])).toEqual([
        ["fork", null],
        ["root", null],
      ]);
      expect(await store.listSessions({ parentId: "root", subagents: "only" })).toEqual([]);
      // Deleting the root leaves its fork: only subagents' sessions go with their parent.
      await store.deleteSession("root");
      expect((await store.getSession("fork"))?.parentId).toBe("root");
    } finally {
      await store.close();
    }
  });

  it("continues a session after reopening, mid-tool", async () => {
    const path = join(dir, "sessions.db");
    const first = openSqliteSessionStore({ path });
    await first.createSession({ id: "s1", cwd: dir });
    await first.append("s1", prompt("s1", "go"));
    await first.append("s1", assistant("s1", [toolUse("t1", "Write", { file_path: "/a", content: "" })]));
    await first.append("s1", progress("s1", "t1", "Write"));
    await first.close();

    const second = openSqliteSessionStore({ path });
    await second.append("s1", toolResults("s1", [{ tool_use_id: "t1", content: "written" }]));
    const [, turn] = await second.getMessages("s1");
    expect(turn?.parts.find((part) => part.type === "tool")).toMatchObject({
      state: { status: "completed" },
    });
    expect(turn?.parts.find((part) => part.type === "patch")).toMatchObject({ files: ["/a"] });
    expect((await second.getSession("s1"))?.messageCount).toBe(4);
    await second.close();
  });

  it("shares one file between two open stores", async () => {
    const path = join(dir, "sessions.db");
    const a = openSqliteSessionStore({ path });
    const b = openSqliteSessionStore({ path });
    await a.createSession({ id: "s1", cwd: dir });
    await a.append("s1", prompt("s1", "from a"));
    await b.append("s1", prompt("s1", "from b"));
    expect((await a.getSessionMessages("s1")).map((m) => m.type)).toEqual(["user", "user"]);
    expect((await a.getMessages("s1")).map((m) => m.parts[0]?.type === "text" && m.parts[0].text)).toEqual([
      "from a",
      "from b",
    ]);
    await a.close();
    await b.close();
    expect(existsSync(`${path}-wal`)).toBe(false);
  });
});
