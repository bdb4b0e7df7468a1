import type { SDKMessage } from "../src/index.js";

export function largeSession(sessionId: string, cwd: string, turns: number, callsPerTurn: number): SDKMessage[];

export interface Cdp {
  send(method: string, params?: unknown): Promise<unknown>;
}

export function measureScript(cdp: Cdp, work: () => Promise<void>): Promise<{ scriptMs: number; mainThreadMs: number }>;

/** The part of a playwright-core page it uses. */
export interface MeasuredPage {
  context(): { newCDPSession(page: MeasuredPage): Promise<Cdp> };
  evaluate<T>(fn: string | (() => T)): Promise<T>;
  waitForFunction(fn: (arg: number) => boolean, arg: number, options?: { timeout?: number }): Promise<unknown>;
}

export function openLargeSession(
  page: MeasuredPage,
  id: string,
  turns: number,
): Promise<{ scriptMs: number; mainThreadMs: number; openedMs: number }>;
