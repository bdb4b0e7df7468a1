import { request as httpRequest } from "node:http";
import { describe, expect, it } from "vitest";
import { createServer } from "../src/server/index.js";
import { mockTurn } from "../src/testing/index.js";
import { withServer } from "./serve-support.js";

const MODEL = "anthropic/claude-sonnet-4-5";
const KEY_A = "key-of-alice-0001";
const KEY_B = "key-of-bob-00002";

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

describe("gyre serve API keys", () => {
  it("refuses requests without a valid key, and a key sees only its own responses", async () => {
    const script = { turns: [mockTurn.text("for alice"), mockTurn.text("again")] };
    await withServer(
      script,
      async ({ client, server, mock }) => {
        const alice = client(KEY_A);
        const bob = client(KEY_B);
        await expect(client("wrong-key-0000").responses.create({ model: MODEL, input: "hi" })).rejects.toMatchObject({
          status: 401,
          code: "invalid_api_key",
        });
        const missing = await post(server.url, { model: MODEL, input: "hi" });
        expect(missing.status).toBe(401);
        expect(await missing.json()).toMatchObject({
          error: { type: "authentication_error", code: "invalid_api_key" },
        });
        expect(mock.requests).toHaveLength(0);

        const mine = await alice.responses.create({ model: MODEL, input: "hi" });
        expect((await alice.responses.retrieve(mine.id)).output_text).toBe("for alice");
        await expect(bob.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
        await expect(bob.responses.inputItems.list(mine.id)).rejects.toMatchObject({ status: 404 });
        await expect(bob.responses.delete(mine.id)).rejects.toMatchObject({ status: 404 });
        await expect(
          bob.responses.create({ model: MODEL, input: "continue", previous_response_id: mine.id }),
        ).rejects.toMatchObject({ status: 400, code: "previous_response_not_found" });
        // Bob's attempts changed nothing; Alice continues her own chain.
        const next = await alice.responses.create({ model: MODEL, input: "more", previous_response_id: mine.id });
        expect(next.output_text).toBe("again");
      },
      { apiKeys: [KEY_A], env: { GYRE_API_KEYS: `${KEY_B}, ` } },
    );
  });

  it("without keys, answers only loopback clients", async () => {
    const app = createServer({ isLoopback: () => false });
    const response = await app.request("/v1/responses", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ model: MODEL, input: "hi" }),
    });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ error: { code: "invalid_api_key" } });
    // Health needs no key.
    expect((await app.request("/healthz")).status).toBe(200);
  });

  it("without keys, refuses a loopback request addressed to another name (DNS rebinding) or sent by another site's page", async () => {
    await withServer({ turns: [mockTurn.text("local")] }, async ({ server, mock }) => {
      const port = new URL(server.url).port;
      const send = (headers: Record<string, string>) =>
        new Promise<number>((resolve, reject) => {
          const body = JSON.stringify({ model: MODEL, input: "hi" });
          const req = httpRequest(
            `${server.url}/v1/responses`,
            { method: "POST", headers: { "content-type": "application/json", ...headers } },
            (res) => {
              res.resume();
              res.on("end", () => resolve(res.statusCode ?? 0));
            },
          );
          req.on("error", reject);
          req.end(body);
        });
      expect(await send({ host: `rebound.example:${port}` })).toBe(401);
      expect(await send({ host: `127.0.0.1:${port}`, origin: "https://evil.example" })).toBe(401);
      expect(mock.requests).toHaveLength(0);
      expect(await send({ host: `localhost:${port}`, origin: `http://localhost:${port}` })).toBe(200);
      expect(mock.requests).toHaveLength(1);
    });
  });
});

describe("gyre serve request errors", () => {
  it("answers invalid requests with 400 and the spec's error object naming the param", async () => {
    await withServer({ turns: [mockTurn.text("unused")] }, async ({ server, mock, client }) => {
      const cases: Array<[unknown, string | null, string]> = [
        [{ input: "hi" }, "model", "missing_required_parameter"],
        [
          { model: MODEL, input: [{ role: "user", content: [{ type: "input_video", url: "x" }] }] },
          "input[0].content[0].type",
          "invalid_value",
        ],
        [{ model: MODEL, input: "hi", temperature: 3 }, "temperature", "invalid_value"],
        [
          {
            model: MODEL,
            input: "hi",
            tools: [{ type: "function", name: "a", parameters: {} }],
            tool_choice: { type: "function", name: "b" },
          },
          "tool_choice.name",
          "invalid_value",
        ],
        [
          {
            model: MODEL,
            input: [{ role: "user", content: [{ type: "input_image", image_url: "https://example.com/a.png" }] }],
          },
          "input[0].content[0].image_url",
          "invalid_image_url",
        ],
        [
          { model: MODEL, input: [{ type: "function_call_output", call_id: "nope", output: "x" }] },
          "input",
          "invalid_input",
        ],
        [
          { model: MODEL, input: "hi", previous_response_id: "resp_unknown" },
          "previous_response_id",
          "previous_response_not_found",
        ],
        ["{not json", null, "invalid_json"],
      ];
      for (const [body, param, code] of cases) {
        const response = await post(server.url, body);
        const error = (await response.json()) as {
          error: { param: string | null; code: string | null; type: string; message: string };
        };
        expect({ status: response.status, param: error.error.param, code: error.error.code }).toEqual({
          status: 400,
          param,
          code,
        });
        expect(error.error.message.length).toBeGreaterThan(0);
      }
      // None of them reached the model.
      expect(mock.requests).toHaveLength(0);
      // The official client sees them as BadRequestError with the param.
      await expect(client().responses.create({ model: MODEL, input: "hi", top_p: 7 })).rejects.toMatchObject({
        status: 400,
        param: "top_p",
      });
    });
  });

  it("answers unknown ids with 404 and bodies over the limit with 413", async () => {
    await withServer(
      { turns: [mockTurn.text("ok")] },
      async ({ server, client, mock }) => {
        await expect(client().responses.retrieve("resp_missing")).rejects.toMatchObject({ status: 404 });
        expect((await fetch(`${server.url}/v1/responses/resp_missing`, { method: "DELETE" })).status).toBe(404);
        expect((await fetch(`${server.url}/v1/responses/resp_missing/input_items`)).status).toBe(404);
        const big = await post(server.url, { model: MODEL, input: "x".repeat(5000) });
        expect(big.status).toBe(413);
        expect(await big.json()).toMatchObject({ error: { code: "request_too_large" } });
        // A chunked body (no content-length) is counted as it is read.
        const chunked = await fetch(`${server.url}/v1/responses`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: new Blob([JSON.stringify({ model: MODEL, input: "x".repeat(5000) })]).stream(),
          duplex: "half",
        } as RequestInit);
        expect(chunked.status).toBe(413);
        expect(await chunked.json()).toMatchObject({ error: { code: "request_too_large" } });
        expect(mock.requests).toHaveLength(0);
      },
      { maxBodyBytes: 4000 },
    );
  });
});

describe("gyre serve listings", () => {
  it("pages input items as OpenAI does", async () => {
    await withServer({ turns: [mockTurn.text("listed")] }, async ({ client }) => {
      const openai = client();
      const input = ["one", "two", "three", "four", "five"].map((text) => ({ role: "user" as const, content: text }));
      const response = await openai.responses.create({ model: MODEL, input });
      const desc = await openai.responses.inputItems.list(response.id);
      expect(desc.data.map((item) => item.type === "message" && item.content)).toEqual([
        "five",
        "four",
        "three",
        "two",
        "one",
      ]);
      const page = await openai.responses.inputItems.list(response.id, { order: "asc", limit: 2 });
      expect(page.data.map((item) => item.type === "message" && item.content)).toEqual(["one", "two"]);
      expect(page.has_more).toBe(true);
      const rest = await openai.responses.inputItems.list(response.id, {
        order: "asc",
        limit: 10,
        after: page.data.at(-1)?.id,
      });
      expect(rest.data.map((item) => item.type === "message" && item.content)).toEqual(["three", "four", "five"]);
      expect(rest.has_more).toBe(false);
      // The SDK's auto-pagination walks every page.
      const all: string[] = [];
      for await (const item of openai.responses.inputItems.list(response.id, { order: "asc", limit: 2 }))
        all.push(item.type === "message" ? String(item.content) : "?");
      expect(all).toEqual(["one", "two", "three", "four", "five"]);
    });
  });

  it("lists the configured model names and refuses others", async () => {
    await withServer(
      { turns: [mockTurn.text("from the public name")] },
      async ({ client, mock }) => {
        const openai = client();
        const models = await openai.models.list();
        expect(models.data.map((model) => model.id)).toEqual(["house-model"]);
        const response = await openai.responses.create({ model: "house-model", input: "hi" });
        expect(response.output_text).toBe("from the public name");
        expect(response.model).toBe("house-model");
        expect(mock.requests[0]?.format).toBe("openai-responses");
        await expect(openai.responses.create({ model: MODEL, input: "hi" })).rejects.toMatchObject({
          status: 404,
          type: "invalid_request_error",
          code: "model_not_found",
          param: "model",
        });
      },
      { models: [{ name: "house-model", model: "openai/gpt-5" }] },
    );
  });
});
