import OpenAI from "openai";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { mockTurn } from "../src/testing/index.js";
import { withMock } from "./helpers.js";
import { exitOf, killAll, requireBuiltCli, serveUntilExit, startServe } from "./serve-process.js";
import { dropSchema, TEST_DATABASE_URL, testSchemaName } from "./sessions-postgres-helper.js";

beforeAll(requireBuiltCli);
afterEach(killAll);

describe("gyre serve --store", () => {
  it("refuses a store URL of an unknown scheme, from --store or GYRE_STORE_URL, before it listens", async () => {
    const flag = await serveUntilExit(["--store", "mysql://root:hunter2@db.internal/gyre"]);
    expect(flag.code).toBe(1);
    expect(flag.output).toContain(
      'gyre: config_error: gyre serve: --store mysql://root:***@db.internal/gyre: unknown store scheme "mysql:"; ' +
        "use sqlite:PATH or postgres://USER@HOST:PORT/DATABASE",
    );
    const env = await serveUntilExit([], { GYRE_STORE_URL: "redis://127.0.0.1:6379" });
    expect(env.code).toBe(1);
    expect(env.output).toContain('GYRE_STORE_URL redis://127.0.0.1:6379: unknown store scheme "redis:"');
    for (const output of [flag.output, env.output]) {
      expect(output).not.toContain("listening on");
      expect(output).not.toContain("hunter2");
    }
  });

  it("names PostgreSQL and where it was looked for when it cannot be reached, and exits 1", async () => {
    const { code, output } = await serveUntilExit(["--store", "postgres://gyre:s3cret@127.0.0.1:1/test"]);
    expect(code).toBe(1);
    expect(output).toContain(
      "gyre: session_store_error: gyre serve: cannot open the store, PostgreSQL at postgres://gyre:***@127.0.0.1:1/test (--store): connect ECONNREFUSED 127.0.0.1:1",
    );
    expect(output).not.toContain("s3cret");
    expect(output).not.toContain("listening on");
  });

  it("keeps responses in PostgreSQL: a server started again on the same schema has them", async () => {
    const schema = testSchemaName();
    const url = `${TEST_DATABASE_URL}?schema=${schema}`;
    try {
      await withMock({ turns: [mockTurn.text("kept in PostgreSQL")] }, async (mock) => {
        const first = await startServe(["--store", url], mock.env());
        const client = new OpenAI({ baseURL: first.url, apiKey: "unused", maxRetries: 0 });
        const response = await client.responses.create({ model: "anthropic/claude-sonnet-4-5", input: "hello" });
        expect(response.output_text).toBe("kept in PostgreSQL");
        first.child.kill("SIGTERM");
        expect(await exitOf(first.child)).toBe(0);

        // Started again (from the code cache its clean exit left), through the variable this time.
        const second = await startServe([], { GYRE_STORE_URL: url });
        const again = new OpenAI({ baseURL: second.url, apiKey: "unused", maxRetries: 0 });
        expect((await again.responses.retrieve(response.id)).output_text).toBe("kept in PostgreSQL");
        second.child.kill("SIGTERM");
        expect(await exitOf(second.child)).toBe(0);
      });
    } finally {
      await dropSchema(schema);
    }
  });
});
