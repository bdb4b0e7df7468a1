import { describe, expect, it } from "vitest";
import { isGyreError } from "../errors/index.js";
import { defaultSqlitePath } from "../sessions/index.js";
import { storeLocation } from "./serve-store.js";

function refusal(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    expect(isGyreError(error, "config_error")).toBe(true);
    return error as Error;
  }
  throw new Error("expected a config_error");
}

describe("gyre serve's store location", () => {
  it("reads sqlite:PATH and postgres:// URLs, --store before GYRE_STORE_URL before Gyre's own file", () => {
    const env = { GYRE_STORE_URL: "sqlite:/from/env.db" };
    expect(storeLocation({ store: "sqlite:/srv/gyre.db" }, env)).toEqual({
      kind: "sqlite",
      path: "/srv/gyre.db",
      source: "--store",
    });
    expect(storeLocation({ store: "sqlite:///srv/gyre.db" }, {})).toMatchObject({ path: "/srv/gyre.db" });
    expect(storeLocation({ store: "sqlite:relative.db" }, {})).toMatchObject({ path: "relative.db" });
    expect(storeLocation({ db: "/old/flag.db" }, env)).toEqual({
      kind: "sqlite",
      path: "/old/flag.db",
      source: "--db",
    });
    expect(storeLocation({}, env)).toEqual({ kind: "sqlite", path: "/from/env.db", source: "GYRE_STORE_URL" });
    expect(storeLocation({}, {})).toEqual({ kind: "sqlite", path: defaultSqlitePath(), source: "the default" });
    expect(
      storeLocation({ store: "postgresql://gyre:pw@db.internal:5433/prod?schema=serve&sslmode=require" }, {}),
    ).toEqual({
      kind: "postgres",
      url: "postgresql://gyre:pw@db.internal:5433/prod?sslmode=require",
      schema: "serve",
      shown: "postgresql://gyre:***@db.internal:5433/prod?schema=serve&sslmode=require",
      source: "--store",
    });
  });

  it("refuses an unknown scheme, naming where the URL came from and never its password", () => {
    const flag = refusal(() => storeLocation({ store: "mysql://root:hunter2@db/gyre" }, {}));
    expect(flag.message).toBe(
      'gyre serve: --store mysql://root:***@db/gyre: unknown store scheme "mysql:"; use sqlite:PATH or postgres://USER@HOST:PORT/DATABASE',
    );
    expect(refusal(() => storeLocation({}, { GYRE_STORE_URL: "redis://cache" })).message).toContain(
      'GYRE_STORE_URL redis://cache: unknown store scheme "redis:"',
    );
    expect(refusal(() => storeLocation({ store: "/just/a/path.db" }, {})).message).toContain(
      "unknown store scheme (none)",
    );
    expect(refusal(() => storeLocation({ store: "sqlite:" }, {})).message).toContain("no file after sqlite:");
    expect(refusal(() => storeLocation({ store: "sqlite:a.db", db: "b.db" }, {})).message).toContain(
      "give --store or --db, not both",
    );
  });
});
