import { existsSync } from "node:fs";
import { defaultSqlitePath, projectOf, projectSqlitePath } from "./default-location.js";
import { MemorySessionStore } from "./memory-store.js";
import { openSqliteSessionStore, type SqliteSessionStore } from "./sqlite-store.js";
import type { SessionStore } from "./store.js";

/** Where a session operation finds its store: the one given, or the user's default SQLite file. */
export interface StoreLocation {
  /** Use this store (it is not closed afterwards). */
  store?: SessionStore;
  /** The project whose sessions are meant (default `process.cwd()`); its old `.gyre/sessions.db` is imported. */
  cwd?: string;
}

/**
 * Opens the user's default SQLite store ({@link defaultSqlitePath}) for work in `cwd`; the
 * project's database of earlier Gyre versions (`<cwd>/.gyre/sessions.db`), when there is
 * one, is imported into it first (once), so no session is lost.
 */
export async function openDefaultSessionStore(cwd: string): Promise<SqliteSessionStore> {
  const store = openSqliteSessionStore({ path: defaultSqlitePath() });
  try {
    const legacy = projectSqlitePath(cwd);
    if (existsSync(legacy)) await store.importDatabase(legacy, projectOf(cwd));
    return store;
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** True when the default store for `cwd` holds nothing yet: neither the user's file nor the project's old one exists. */
export function defaultStoreIsEmpty(cwd: string): boolean {
  return !existsSync(defaultSqlitePath()) && !existsSync(projectSqlitePath(cwd));
}

/**
 * Runs `work` against the given store, or against the default store for the location's
 * project, closed afterwards. When there is no database yet, `work` sees an empty store
 * and nothing is created: looking does not make files.
 */
export async function withStore<T>(location: StoreLocation, work: (store: SessionStore) => Promise<T>): Promise<T> {
  if (location.store) return work(location.store);
  const cwd = location.cwd ?? process.cwd();
  const store = defaultStoreIsEmpty(cwd) ? new MemorySessionStore() : await openDefaultSessionStore(cwd);
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
