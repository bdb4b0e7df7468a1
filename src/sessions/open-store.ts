import { openSqliteSessionStore } from "./sqlite-store.js";
import type { SessionStore } from "./store.js";

/** Where a session operation finds its store: the one given, or the project's SQLite file. */
export interface StoreLocation {
  /** Use this store (it is not closed afterwards). */
  store?: SessionStore;
  /** The project whose `.gyre/sessions.db` is used when no store is given (default `process.cwd()`). */
  cwd?: string;
}

/**
 * Runs `work` against the given store, or opens the project's default SQLite store for it
 * and closes it afterwards.
 */
export async function withStore<T>(location: StoreLocation, work: (store: SessionStore) => Promise<T>): Promise<T> {
  if (location.store) return work(location.store);
  const store = openSqliteSessionStore({ cwd: location.cwd ?? process.cwd() });
  try {
    return await work(store);
  } finally {
    await store.close();
  }
}
