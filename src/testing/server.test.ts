import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { callOptions, client, generateTurn, streamTurn } from "../../test/mock-llm-support.js";
import { isGyreError } from "../errors/index.js";
import { type MockLLMServer, mockTurn, startMockLLM } from "./index.js";

let server: MockLLMServer;
beforeAll(async () => {
  server = await startMockLLM({ script: { turns: [mockTurn.text("hello")] } });
});
afterAll(() => server.close());
beforeEach(() => {
  server.setScript({ turns: [mockTurn.text("hello")] });
  server.reset();
});

async function post(path: string, body: string) {
  const response = await fetch(`${server.url}${path}`, { method: "POST", body });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe("startMockLLM", () => {
  it("listens on 127.0.0.1 with a /v1 base URL", () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`);
    expect(server.baseURL).toBe(`${server.url}/v1`);
  });

  it("env() points each provider's base URL at the server, with placeholder keys", () => {
    expect(server.env()).toEqual({
      ANTHROPIC_API_KEY: "mock-key",
      ANTHROPIC_BASE_URL: server.baseURL,
      OPENAI_API_KEY: "mock-key",
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_COMPATIBLE_API_KEY: "mock-key",
      OPENAI_COMPATIBLE_BASE_URL: server.baseURL,
      GOOGLE_GENERATIVE_AI_API_KEY: "mock-key",
      GOOGLE_GENERATIVE_AI_BASE_URL: `${server.url}/v1beta`,
    });
  });

  it("rejects an invalid script with mock_script_error", async () => {
    const invalid = { turns: [{ content: [{ type: "video" }] }] } as never;
    const error = await startMockLLM({ script: invalid }).catch((thrown: unknown) => thrown);
    expect(isGyreError(error, "mock_script_error")).toBe(true);
    expect(() => server.setScript(invalid)).toThrow(/invalid script/);
  });
});

describe("request log", () => {
  it("records every model request with its format, turn, attempt, body and headers", async () => {
    await streamTurn(client("anthropic", server));
    await generateTurn(client("openai-chat", server));
    await streamTurn(client("openai-responses", server));
    const [anthropic, chat, responses] = server.requests;
    expect(
      server.requests.map(({ seq, format, stream, turn, attempt }) => ({
        seq,
        format,
        stream,
        turn,
        attempt,
      })),
    ).toEqual([
      { seq: 1, format: "anthropic", stream: true, turn: 0, attempt: 0 },
      { seq: 2, format: "openai-chat", stream: false, turn: 0, attempt: 1 },
      { seq: 3, format: "openai-responses", stream: true, turn: 0, attempt: 2 },
    ]);
    expect(anthropic?.body.model).toBe("claude-sonnet-4-5");
    expect(anthropic?.body.messages).toEqual([{ role: "user", content: [{ type: "text", text: "hi" }] }]);
    expect(anthropic?.headers["x-api-key"]).toBe("test-key");
    expect(chat?.headers.authorization).toBe("Bearer test-key");
    expect(responses?.body.input).toEqual([{ role: "user", content: [{ type: "input_text", text: "hi" }] }]);
    expect(Number.isNaN(Date.parse(anthropic?.receivedAt ?? ""))).toBe(false);
  });

  it("is served as JSON at GET /_mock/requests and cleared by POST /_mock/reset", async () => {
    await streamTurn(client("openai-compatible", server));
    const listed = await (await fetch(`${server.url}/_mock/requests`)).json();
    expect(listed).toEqual(JSON.parse(JSON.stringify(server.requests)));
    expect(listed).toHaveLength(1);
    const log = server.requests;
    expect(await post("/_mock/reset", "")).toEqual({ status: 200, body: { ok: true } });
    expect(log).toHaveLength(0);
    expect(await (await fetch(`${server.url}/_mock/requests`)).json()).toEqual([]);
  });
});

describe("control and bad requests", () => {
  it("takes a new script at POST /_mock/script and refuses an invalid one", async () => {
    const script = { turns: [mockTurn.text("from the wire")] };
    expect(await post("/_mock/script", JSON.stringify(script))).toEqual({ status: 200, body: { ok: true } });
    expect((await streamTurn(client("anthropic", server))).text).toBe("from the wire");
    const refused = await post("/_mock/script", '{"turns": 3}');
    expect(refused.status).toBe(400);
    expect(String((refused.body.error as { message: string }).message)).toMatch(/invalid script/);
  });

  it("answers a body that is not JSON with the provider's 400 error shape", async () => {
    expect(await post("/v1/messages", "{oops")).toEqual({
      status: 400,
      body: {
        type: "error",
        error: { type: "invalid_request_error", message: "mock-llm: the request body is not a JSON object" },
      },
    });
    const chat = await post("/v1/chat/completions", "[]");
    expect(chat.status).toBe(400);
    expect(chat.body.error).toMatchObject({ type: "invalid_request_error" });
    expect(server.requests).toHaveLength(0);
  });

  it("answers unknown routes with 404", async () => {
    expect((await post("/v1/embeddings", "{}")).status).toBe(404);
    expect((await fetch(`${server.url}/v1/messages`)).status).toBe(404);
  });
});

describe("close()", () => {
  it("does not hang on idle keep-alive sockets or on answers still waiting", async () => {
    let secondRequestLogged: () => void = () => {};
    const waiting = new Promise<void>((resolve) => {
      secondRequestLogged = resolve;
    });
    const local = await startMockLLM({
      script: {
        mode: "sequential",
        turns: [mockTurn.text("quick"), mockTurn.text("late", { delayMs: 600_000 })],
      },
      onRequest: (request) => request.seq === 2 && secondRequestLogged(),
    });
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const options = { method: "POST", headers: { connection: "keep-alive" } };
      const req = httpRequest(`${local.baseURL}/messages`, options, (res) => {
        res.resume();
        res.on("end", () => resolve(res.statusCode));
      });
      req.on("error", reject);
      req.end('{"messages":[]}');
    });
    expect(status).toBe(200);
    const outcome = Promise.resolve(client("anthropic", local).doStream(callOptions())).catch(
      (thrown: unknown) => thrown,
    );
    await waiting;
    await local.close();
    expect(await outcome).toBeInstanceOf(Error);
  });
});
