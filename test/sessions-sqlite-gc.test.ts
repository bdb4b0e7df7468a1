// A process that opens and closes SQLite session stores and then garbage-collects them must
// go on and exit cleanly. On Node 24, V8 collecting better-sqlite3 objects during an
// allocation-triggered GC aborts the process (see src/sessions/sqlite-keep-alive.ts); this
// runs the real store code in a child `node` so such an abort shows as its exit.
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { compileSessionsForChild } from "./sessions-child.js";

const run = promisify(execFile);
let compiled: { entry: string; cleanup: () => void };
let dir: string;

beforeAll(() => {
  compiled = compileSessionsForChild();
  dir = mkdtempSync(join(tmpdir(), "gyre-sqlite-gc-"));
});
afterAll(() => {
  compiled.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

describe("SQLite stores and the garbage collector", () => {
  it("a process that opens, uses and closes stores survives the GCs that collect them", async () => {
    const script = `
      import { openSqliteSessionStore } from ${JSON.stringify(compiled.entry)};
      for (let i = 0; i < 20; i++) {
        const store = openSqliteSessionStore({ path: ${JSON.stringify(join(dir, "gc.db"))} });
        const session = await store.createSession({ cwd: "/" });
        const lock = await store.acquireLock(session.id);
        await store.append(session.id, {
          type: "system", subtype: "init", uuid: crypto.randomUUID(), session_id: session.id,
        });
        await lock.release();
        await store.close();
      }
      // Allocate, across turns of the event loop, until V8 has collected several times.
      for (let round = 0; round < 40; round++) {
        await new Promise((resolve) => setImmediate(resolve));
        const garbage = [];
        for (let i = 0; i < 100000; i++) garbage.push({ i, text: "x" + i });
      }
      console.log("survived");
    `;
    const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { cwd: dir });
    expect(stdout.trim()).toBe("survived");
  });
});
