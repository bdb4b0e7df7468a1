import { createHmac, timingSafeEqual } from "node:crypto";
import { ownerOfKey } from "./auth.js";

/** How long a sign-in on `/ui` lasts (12 hours). */
export const UI_SIGN_IN_SECONDS = 12 * 60 * 60;

/**
 * The cookie that stands for an API key on `gyre serve`'s `/ui` once its holder signed in:
 * `OWNER.EXPIRES.MAC`, the MAC an HMAC keyed by a secret derived from the key itself. So the
 * cookie never holds the key, a forged or expired one is refused, every instance of a cluster
 * that has the same keys accepts it with no state shared, and removing a key from the config
 * ends its sign-ins.
 */
export class UiSignIns {
  /** Owner id → the secret its cookies are signed with. */
  readonly #secrets = new Map<string, Buffer>();
  readonly #now: () => number;

  constructor(keys: readonly string[], now: () => number = Date.now) {
    for (const key of keys)
      this.#secrets.set(ownerOfKey(key), createHmac("sha256", key).update("gyre serve /ui sign-in v1").digest());
    this.#now = now;
  }

  /** A new cookie value for `owner` (one of the keys' owner ids), valid for {@link UI_SIGN_IN_SECONDS}. */
  issue(owner: string): string | undefined {
    const secret = this.#secrets.get(owner);
    if (!secret) return undefined;
    const claim = `${owner}.${Math.floor(this.#now() / 1000) + UI_SIGN_IN_SECONDS}`;
    return `${claim}.${mac(secret, claim)}`;
  }

  /** The owner id a cookie value stands for, when it was issued here, for a key still configured, and has not expired. */
  ownerOf(cookie: string | undefined): string | undefined {
    const [owner, expires, given, ...rest] = cookie?.split(".") ?? [];
    if (owner === undefined || expires === undefined || given === undefined || rest.length > 0) return undefined;
    const secret = this.#secrets.get(owner);
    if (!secret || !/^\d+$/.test(expires) || Number(expires) * 1000 <= this.#now()) return undefined;
    const expected = Buffer.from(mac(secret, `${owner}.${expires}`));
    const actual = Buffer.from(given);
    return actual.length === expected.length && timingSafeEqual(actual, expected) ? owner : undefined;
  }
}

function mac(secret: Buffer, claim: string): string {
  return createHmac("sha256", secret).update(claim).digest("base64url");
}
