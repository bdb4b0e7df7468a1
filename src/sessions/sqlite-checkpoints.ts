import { createRequire } from "node:module";
import type * as WorkerThreads from "node:worker_threads";
import type BetterSqlite3 from "better-sqlite3";
import { driverPath } from "./sqlite-driver.js";

/**
 * The worker's code: its own connection to the database, which copies the write-ahead log
 * into the database file every `intervalMs` (a PASSIVE checkpoint: writers never wait for
 * it), and once more when told to stop. Inline, so that the bundled CLI needs no extra file.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.driver);
const db = new Database(workerData.path);
db.exec("PRAGMA busy_timeout = 10000");
const checkpoint = () => { try { db.exec("PRAGMA wal_checkpoint(PASSIVE)"); } catch {} };
const timer = setInterval(checkpoint, workerData.intervalMs);
parentPort.on("message", () => {
  clearInterval(timer);
  checkpoint();
  db.close();
  parentPort.close();
});
`;

/** Background checkpoints of one database; {@link stop} ends them. */
export interface BackgroundCheckpoints {
  stop(): Promise<void>;
}

/**
 * Moves a WAL database's checkpoints off the calling thread. SQLite checkpoints in the
 * connection whose commit passes 1,000 pages of log, and a checkpoint syncs the log and the
 * database file to disk: a stall of milliseconds in whichever request commits then, which on
 * a server is every stream in flight waiting. Here the caller's connection never checkpoints
 * (`wal_autocheckpoint = 0`) and a worker thread with a connection of its own does, on a
 * timer. Should the worker fail, the caller's connection checkpoints again as before, so the
 * log cannot grow without bound.
 */
export function checkpointInBackground(
  db: BetterSqlite3.Database,
  path: string,
  intervalMs = 250,
): BackgroundCheckpoints {
  db.exec("PRAGMA wal_autocheckpoint = 0");
  // node:worker_threads loads here, once a checkpoint writer starts, not with the session store.
  const { Worker } = createRequire(import.meta.url)("node:worker_threads") as typeof WorkerThreads;
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver: driverPath(), path, intervalMs } });
  worker.unref();
  let stopping = false;
  const exited = new Promise<void>((resolve) => worker.once("exit", () => resolve()));
  const fallBack = () => {
    try {
      if (!stopping && db.open) db.exec("PRAGMA wal_autocheckpoint = 1000");
    } catch {
      // The database is closing: nothing is left to checkpoint from here.
    }
  };
  worker.once("error", fallBack);
  worker.once("exit", fallBack);
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      worker.ref(); // the last checkpoint finishes before the process may exit
      worker.postMessage("stop");
      await exited;
    },
  };
}
