import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import { cliEnv } from "./helpers.js";
import { CLI, track } from "./serve-process.js";

/** The real Redis the tests use; each test's cluster has a key prefix of its own (`?prefix=`). */
export const REDIS_URL = "redis://127.0.0.1:6379/0";

/** A queue URL with a prefix of its own, and a function that deletes its keys. */
export function testQueue(): { url: string; prefix: string; clean: () => Promise<void> } {
  const prefix = `gyre-test-${randomUUID()}`;
  return {
    url: `${REDIS_URL}?prefix=${prefix}`,
    prefix,
    clean: async () => {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

/** Starts `gyre worker ARGS` (killed after the test by `killAll`) and waits until it says it runs; its stdout lines are in `lines`. */
export async function startWorker(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ child: ChildProcess; lines: string[] }> {
  const child = track(
    spawn(process.execPath, [CLI, "worker", ...args], { env: cliEnv(env), stdio: ["ignore", "pipe", "inherit"] }),
  );
  const lines: string[] = [];
  const input = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const ready = new Promise<void>((resolve, reject) => {
    input.on("line", (line) => {
      lines.push(line);
      if (line.startsWith("gyre worker running")) resolve();
    });
    child.once("exit", (code) => reject(new Error(`gyre worker exited (${code}) before it ran`)));
  });
  await ready;
  return { child, lines };
}

/** Whether the response's event stream in Redis (as the worker running it appended them) has an event of `type`. */
export async function streamHas(prefix: string, responseId: string, type: string): Promise<boolean> {
  const redis = new Redis(REDIS_URL);
  try {
    const entries = await redis.xrange(`${prefix}:events:${responseId}`, "-", "+");
    return entries.some(([, fields]) => fields[0] === "event" && fields[1]?.includes(`"type":"${type}"`));
  } finally {
    redis.disconnect();
  }
}

/**
 * Polls `check` every 25 ms until it gives a value (not `undefined` or `false`) and returns it;
 * fails naming `what` after `tries` looks (60 s by default: processes start slowly on a busy machine).
 */
export async function until<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  what: string,
  tries = 2400,
): Promise<T> {
  for (let attempt = 0; attempt < tries; attempt++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
}
