import type { BackgroundRunner } from "./background.js";
import type { RunDependencies } from "./run-dependencies.js";

/** What a server's routes share with its WebSocket endpoint (see `attachWebSocket`). */
export interface ServerParts {
  deps: RunDependencies;
  runner: BackgroundRunner;
  apiKeys: string[];
  maxBodyBytes: number | undefined;
  /** The page at `/ui`, unless the config turned it off: its live updates stop on close. */
  ui: { close(): void } | undefined;
}

const PARTS = new WeakMap<object, ServerParts>();

/** The parts of an app made by `createServer`, or undefined for any other app. */
export function serverParts(app: object): ServerParts | undefined {
  return PARTS.get(app);
}

/** Remembers the parts `createServer` made `app` with, for `attachWebSocket` and `serve` to find. */
export function keepServerParts(app: object, parts: ServerParts): void {
  PARTS.set(app, parts);
}
