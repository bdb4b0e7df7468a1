import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isGyreError } from "../src/errors/index.js";
import type { SDKMessage } from "../src/protocol/index.js";
import {
  applyMessage,
  createIdGenerator,
  type IdGenerator,
  initialDeriveState,
  openSqliteSessionStore,
  projectSqlitePath,
  type SessionStore,
} from "../src/sessions/index.js";
import { migrateSqlite, SQLITE_MIGRATIONS } from "../src/sessions/sqlite-migrations.js";
import { compactBoundary, prompt, sampleTurn } from "./sessions-fixtures.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "gyre-sqlite-migration-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const NOW = 1_700_000_000_000;
const CWD = "/repo";

/** Deterministic ids and times, so two stores fed the same messages derive the same rows. */
function deterministic(): { now: () => number; newId: IdGenerator } {
  let seed = 0;
  const now = () => NOW;
  return { now, newId: createIdGenerator({ now, random: (size) => new Uint8Array(size).fill(seed++ % 32) }) };
}

/** Writes `messages` the way the version 1 store did: raw rows plus upserted message and part rows. */
function writeVersion1(path: string, sessionId: string, messages: SDKMessage[]): void {
  const db = new Database(path);
  migrateSqlite(db, SQLITE_MIGRATIONS.slice(0, 1), NOW);
  const { now, newId } = deterministic();
  let state = initialDeriveState();
  const upsertMessage = db.prepare(
    "INSERT INTO messages (id, session_id, seq, data) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET data = excluded.data",
  );
  const upsertPart = db.prepare(
    "INSERT INTO parts (id, message_id, session_id, seq, ord, type, data) VALUES (?, ?, ?, ?, ?, ?, ?) " +
      "ON CONFLICT (id) DO UPDATE SET data = excluded.data",
  );
  const insertRaw = db.prepare(
    "INSERT INTO session_messages (session_id, seq, uuid, type, data, created_at) VALUES (?, ?, ?, ?, ?, ?)",
  );
  for (const message of messages) {
    const derived = applyMessage(state, message, { sessionId, now: now(), newId });
    state = derived.state;
    const seq = state.messageCount;
    insertRaw.run(sessionId, seq, message.uuid, message.type, JSON.stringify(message), NOW);
    for (const row of derived.messages) upsertMessage.run(row.id, sessionId, seq, JSON.stringify(row));
    derived.parts.forEach((part, ord) => {
      upsertPart.run(part.id, part.messageId, sessionId, seq, ord, part.type, JSON.stringify(part));
    });
  }
  db.prepare(
    "INSERT INTO sessions (id, cwd, title, created_at, updated_at, parent_id, forked_from_message, state) " +
      "VALUES (?, ?, NULL, ?, ?, NULL, NULL, ?)",
  ).run(sessionId, CWD, NOW, NOW, JSON.stringify(state));
  db.close();
}

async function snapshot(store: SessionStore, sessionId: string) {
  return {
    session: await store.getSession(sessionId),
    raw: await store.getSessionMessages(sessionId),
    derived: await store.getMessages(sessionId),
  };
}

describe("SQLite migration 2 (derived rows kept with their raw message)", () => {
  it("reads a version 1 database exactly as a store that wrote the same messages itself", async () => {
    const messages = [...sampleTurn("s1"), compactBoundary("s1"), ...sampleTurn("s1", "again")];
    const oldPath = join(dir, "v1.db");
    writeVersion1(oldPath, "s1", messages);

    const fresh = openSqliteSessionStore({ path: join(dir, "v2.db"), ...deterministic() });
    await fresh.createSession({ id: "s1", cwd: CWD });
    for (const message of messages) await fresh.append("s1", message);
    const expected = await snapshot(fresh, "s1");
    await fresh.close();
    // The tool parts were updated after their first insert: the replay must keep the last version.
    expect(expected.derived[1]?.parts.find((part) => part.type === "tool")).toMatchObject({
      state: { status: "completed" },
    });

    const migrated = openSqliteSessionStore({ path: oldPath, ...deterministic() });
    expect(await snapshot(migrated, "s1")).toEqual(expected);
    // The migrated session goes on like any other.
    await migrated.append("s1", prompt("s1", "after the upgrade"));
    expect((await migrated.getMessages("s1")).length).toBe(expected.derived.length + 1);
    await migrated.close();

    const db = new Database(oldPath, { readonly: true });
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all();
    expect(tables).not.toContain("parts");
    expect(tables).not.toContain("messages");
    db.close();
  });
});

describe("importing a project's database of an earlier Gyre into the user's store", () => {
  it("copies a version 1 project database once, as that project's sessions, leaving the file as it was", async () => {
    const messages = [...sampleTurn("s1"), compactBoundary("s1"), ...sampleTurn("s1", "again")];
    const project = join(dir, "project");
    const oldPath = projectSqlitePath(project);
    mkdirSync(join(project, ".gyre"), { recursive: true });
    writeVersion1(oldPath, "s1", messages);
    const oldBytes = readFileSync(oldPath);

    const reference = openSqliteSessionStore({ path: join(dir, "reference.db"), ...deterministic() });
    await reference.createSession({ id: "s1", cwd: CWD });
    for (const message of messages) await reference.append("s1", message);
    const expected = await snapshot(reference, "s1");
    await reference.close();

    const user = openSqliteSessionStore({ path: join(dir, "home", "sessions.db"), ...deterministic() });
    await user.createSession({ id: "elsewhere", cwd: "/other" });
    expect(await user.importDatabase(oldPath, project)).toBe(1);
    expect(await snapshot(user, "s1")).toEqual({ ...expected, session: { ...expected.session, project } });
    expect((await user.listSessions({ project })).map((session) => session.id)).toEqual(["s1"]);
    // Once per file: a second import (or another process's) copies nothing again.
    expect(await user.importDatabase(oldPath, project)).toBe(0);
    expect(await user.getSessionMessages("s1")).toHaveLength(messages.length);
    await user.close();
    // Nothing lost and nothing changed: the old file is still a version 1 database, byte for byte.
    expect(readFileSync(oldPath).equals(oldBytes)).toBe(true);
  });

  it("copies checkpoints and times of a database written by the store itself, and refuses a file that is not one", async () => {
    const oldPath = join(dir, "old.db");
    const old = openSqliteSessionStore({ path: oldPath, now: () => NOW });
    await old.createSession({ id: "s1", cwd: CWD });
    const first = prompt("s1", "edit a");
    await old.append("s1", first);
    await old.saveCheckpoint("s1", first.uuid, "/repo/a", Buffer.from([0, 1, 2]));
    await old.close();

    const user = openSqliteSessionStore({ path: join(dir, "user.db") });
    expect(await user.importDatabase(oldPath, "/real/repo")).toBe(1);
    expect(await user.getSession("s1")).toMatchObject({ createdAt: NOW, updatedAt: NOW, project: "/real/repo" });
    expect(await user.getCheckpoints("s1", first.uuid)).toEqual([
      { messageUuid: first.uuid, filePath: "/repo/a", contentBefore: Buffer.from([0, 1, 2]), createdAt: NOW },
    ]);

    const garbage = join(dir, "garbage.db");
    writeFileSync(garbage, "not a database ".repeat(100));
    const error = await user.importDatabase(garbage, "/x").catch((caught: unknown) => caught);
    expect(isGyreError(error, "session_store_error")).toBe(true);
    expect(await user.listSessions()).toHaveLength(1);
    await user.close();
  });
});
