import { randomBytes, randomFillSync } from "node:crypto";

/** Prefixes name what an id points at, so a stray id in a log says what it is. */
export type IdPrefix = "ses" | "msg" | "prt";

/** Returns a new id for the given kind; ids from one generator sort in creation order. */
export type IdGenerator = (prefix: IdPrefix) => string;

export interface IdGeneratorOptions {
  /** Milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** Random bytes (default `crypto.randomBytes`); inject for deterministic ids in tests. */
  random?: (size: number) => Uint8Array;
}

// Crockford's base32, as in ULID: sorts the same as a string and as a number.
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const TIME_DIGITS = 10;
const RANDOM_DIGITS = 16;

/**
 * ULID-shaped ids (`msg_01JD5...`): 10 digits of millisecond time, then 16 random digits.
 * Within one generator they are strictly increasing: when the clock stands still or steps
 * back, the random part of the last id is incremented instead of drawn anew, so string
 * order is creation order.
 */
export function createIdGenerator(options: IdGeneratorOptions = {}): IdGenerator {
  const now = options.now ?? Date.now;
  const random = options.random ?? pooledRandomBytes();
  let lastTime = -1;
  let encodedTime = -1;
  let timeText = "";
  // Owned by this generator and changed in place: ids are made on every append.
  const digits = new Array<number>(RANDOM_DIGITS).fill(0);
  const draw = (): void => {
    const bytes = random(RANDOM_DIGITS);
    for (let i = 0; i < RANDOM_DIGITS; i++) digits[i] = bytes[i]! % 32;
  };

  return (prefix) => {
    const time = now();
    if (time > lastTime) {
      lastTime = time;
      draw();
    } else if (!increment(digits)) {
      // 80 bits used up within one millisecond: borrow the next millisecond to keep order.
      lastTime += 1;
      draw();
    }
    if (encodedTime !== lastTime) {
      encodedTime = lastTime;
      timeText = encodeTime(lastTime);
    }
    let id = `${prefix}_${timeText}`;
    for (const digit of digits) id += ALPHABET[digit];
    return id;
  };
}

const POOL_SIZE = 4096;

/**
 * `crypto.randomBytes` drawn a page at a time: one call per 256 ids instead of one per id.
 * The returned view is only valid until the next call (the generator copies it at once).
 */
function pooledRandomBytes(): (size: number) => Uint8Array {
  const pool = Buffer.alloc(POOL_SIZE);
  let offset = POOL_SIZE;
  return (size) => {
    if (size > POOL_SIZE) return randomBytes(size);
    if (offset + size > POOL_SIZE) {
      randomFillSync(pool);
      offset = 0;
    }
    offset += size;
    return pool.subarray(offset - size, offset);
  };
}

function encodeTime(time: number): string {
  let rest = Math.max(0, Math.floor(time));
  let out = "";
  for (let i = 0; i < TIME_DIGITS; i++) {
    out = ALPHABET[rest % 32] + out;
    rest = Math.floor(rest / 32);
  }
  return out;
}

/** Adds one to the base-32 digits in place; false (all zeros) on overflow. */
function increment(digits: number[]): boolean {
  for (let i = digits.length - 1; i >= 0; i--) {
    const digit = digits[i]!;
    if (digit < 31) {
      digits[i] = digit + 1;
      return true;
    }
    digits[i] = 0;
  }
  return false;
}
