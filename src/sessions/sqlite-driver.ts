import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";

let Driver: typeof BetterSqlite3 | undefined;

/**
 * Opens a better-sqlite3 database. The package is required at the first open, not imported
 * with Gyre: a program that never opens a SQLite store never loads it (the bundled CLI opens
 * its store once the first model request is on its way).
 */
export function openDatabase(path: string, options?: BetterSqlite3.Options): BetterSqlite3.Database {
  Driver ??= createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
  return new Driver(path, options);
}

/** Where the better-sqlite3 package's entry is, for a worker thread to require it there. */
export function driverPath(): string {
  return createRequire(import.meta.url).resolve("better-sqlite3");
}
