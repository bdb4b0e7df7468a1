import { randomBytes } from "node:crypto";
import pg from "pg";
import { openPostgresSessionStore, type PostgresSessionStore, type StoreClockOptions } from "../src/sessions/index.js";

/** The test database; Postgres must be reachable: these tests fail, never skip, without it. */
export const TEST_DATABASE_URL = process.env.GYRE_TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export function testSchemaName(): string {
  return `gyre_test_${randomBytes(6).toString("hex")}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}

/** A store in a fresh schema of its own, and the cleanup that drops the schema. */
export async function openTestPostgresStore(
  options: StoreClockOptions = {},
): Promise<{ store: PostgresSessionStore; schema: string; cleanup: () => Promise<void> }> {
  const schema = testSchemaName();
  const store = await openPostgresSessionStore({ connectionString: TEST_DATABASE_URL, schema, ...options });
  return {
    store,
    schema,
    cleanup: async () => {
      await store.close();
      await dropSchema(schema);
    },
  };
}
