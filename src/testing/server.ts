import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { errorMessage, GyreError } from "../errors/index.js";
import { buildAnswer } from "./answer.js";
import { contextWindowError, requestTokens } from "./context-window.js";
import { anthropicFormat } from "./anthropic-format.js";
import { geminiFormat } from "./gemini-format.js";
import { openaiChatFormat } from "./openai-chat-format.js";
import { openaiResponsesFormat } from "./openai-responses-format.js";
import { sendCut, sendJson, sendStall, sendStream, sleep } from "./respond.js";
import { type MockFault, type MockScript, parseMockScript } from "./script.js";
import { TurnSelector } from "./turn-selector.js";
import { isRecord, type MockFormat, type WireFormat } from "./wire-format.js";

/** One request the mock server received, as `server.requests` and `GET /_mock/requests` list it. */
export interface MockRequest {
  /** 1-based order of arrival. */
  seq: number;
  format: MockFormat;
  /** The request path, without the query string (`/v1/messages`, `/v1beta/models/gemini-2.5-pro:generateContent`). */
  path: string;
  stream: boolean;
  /** The route (index in the script's `routes`) the request was answered from; absent for the main turns. */
  route?: number;
  /** The turn index the request was matched to (may be past the end of the script). */
  turn: number;
  /** 0-based attempt at that turn. */
  attempt: number;
  /** The fault this attempt met, if any. */
  fault?: MockFault;
  /** Tokens the mock counted for a request over the script's `contextWindow`: it was refused, and `turn` is -1. */
  overContextWindow?: number;
  body: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** ISO 8601 time of arrival. */
  receivedAt: string;
}

export interface MockLLMOptions {
  script: MockScript;
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
  /** Called as each model request is logged, before it is answered (e.g. to abort a client mid-wait). */
  onRequest?: (request: MockRequest) => void;
}

/**
 * Environment variables that point Gyre's `anthropic/`, `openai/`, `openai-chat/` and
 * `openai-compatible/` models at a mock server, with placeholder API keys. A type alias, not an
 * interface, so that it fits `env: Record<string, string | undefined>`.
 */
export type MockLLMEnv = {
  ANTHROPIC_API_KEY: string;
  ANTHROPIC_BASE_URL: string;
  OPENAI_API_KEY: string;
  OPENAI_BASE_URL: string;
  OPENAI_COMPATIBLE_API_KEY: string;
  OPENAI_COMPATIBLE_BASE_URL: string;
  GOOGLE_GENERATIVE_AI_API_KEY: string;
  GOOGLE_GENERATIVE_AI_BASE_URL: string;
};

/** A running mock LLM server. */
export interface MockLLMServer {
  /** `http://HOST:PORT` */
  readonly url: string;
  /** `http://HOST:PORT/v1`: the `baseURL` for createAnthropic / createOpenAI / createOpenAICompatible / createGoogleGenerativeAI. */
  readonly baseURL: string;
  readonly port: number;
  /** The request log; the same array for the server's lifetime, appended live. */
  readonly requests: readonly MockRequest[];
  /**
   * The provider variables that point models at this server: pass them as `query()`'s `env`
   * option (`{ model: "anthropic/claude-sonnet-4-5", env: server.env() }`), or add them to the
   * environment of a `gyre run` process.
   */
  env(): MockLLMEnv;
  /** Replace the script (validated) and restart turn counting; the log is kept. */
  setScript(script: MockScript): void;
  /** Clear the request log, attempt counters and the sequential cursor. */
  reset(): void;
  /** Stop listening, cut open connections (keep-alive included) and end pending waits. */
  close(): Promise<void>;
}

/** A model API request the server answers: its wire format, and what the path says of it. */
interface Route {
  wire: WireFormat;
  /** Gemini names the model and whether to stream in the path; the others in the body. */
  model?: string;
  stream?: boolean;
}

/**
 * The API paths answered. Azure OpenAI's paths are OpenAI's under `/openai` (its v1 API) or
 * under a deployment; `/v1` is accepted beside Gemini's `/v1beta`, so one `baseURL` serves all.
 */
function routeOf(path: string): Route | undefined {
  if (path === "/v1/messages") return { wire: anthropicFormat };
  if (/^(\/openai)?\/v1\/chat\/completions$|^\/openai\/deployments\/[^/]+\/chat\/completions$/.test(path)) {
    return { wire: openaiChatFormat };
  }
  if (/^(\/openai)?\/v1\/responses$|^\/openai\/deployments\/[^/]+\/responses$/.test(path)) {
    return { wire: openaiResponsesFormat };
  }
  const gemini = /^\/v1(?:beta)?\/models\/([^/:]+):(generateContent|streamGenerateContent)$/.exec(path);
  if (gemini?.[1]) {
    return { wire: geminiFormat, model: decodeURIComponent(gemini[1]), stream: gemini[2] === "streamGenerateContent" };
  }
  return undefined;
}

/**
 * Start a real HTTP server that answers Anthropic Messages, OpenAI Chat Completions, OpenAI
 * Responses (also at Azure OpenAI's paths) and Gemini generateContent requests from `script`,
 * streamed or whole, in each API's wire format.
 * Throws `GyreError("mock_script_error")` if the script is invalid.
 */
export async function startMockLLM(options: MockLLMOptions): Promise<MockLLMServer> {
  let script = parseMockScript(options.script);
  const selector = new TurnSelector();
  const requests: MockRequest[] = [];
  const closing = new AbortController();

  const handleModelRequest = async (req: IncomingMessage, res: ServerResponse, path: string, route: Route) => {
    const { wire } = route;
    const signal = requestSignal(res, closing.signal);
    const body = await readJson(req);
    if (!isRecord(body)) {
      const error = wire.error(400, "mock-llm: the request body is not a JSON object");
      return sendJson(res, error.status, error.body);
    }
    const stream = route.stream ?? body.stream === true;
    const tokens = requestTokens(body);
    if (script.contextWindow !== undefined && tokens > script.contextWindow) {
      const logged = { seq: requests.length + 1, format: wire.format, path, stream, turn: -1, attempt: 0 };
      const record: MockRequest = {
        ...logged,
        overContextWindow: tokens,
        body,
        headers: req.headers,
        receivedAt: new Date().toISOString(),
      };
      requests.push(record);
      options.onRequest?.(record);
      const error = contextWindowError(wire, tokens, script.contextWindow);
      return sendJson(res, error.status, error.body);
    }
    const selection = selector.selectFor(script, wire.assistantRuns(body), wire.systemText(body));
    const record: MockRequest = {
      seq: requests.length + 1,
      format: wire.format,
      path,
      stream,
      turn: selection.turn,
      ...(selection.route !== undefined && { route: selection.route }),
      attempt: selection.attempt,
      ...(selection.fault && { fault: selection.fault }),
      body,
      headers: req.headers,
      receivedAt: new Date().toISOString(),
    };
    requests.push(record);
    options.onRequest?.(record);
    const turn = selection.script;
    if (turn === undefined) {
      const turns = selection.route === undefined ? script.turns : (script.routes?.[selection.route]?.turns ?? []);
      const count = turns.length;
      const where = selection.route === undefined ? "the script" : `route ${selection.route} of the script`;
      const message = `mock-llm: ${where} has no turn ${selection.turn} (it has ${count} turn${count === 1 ? "" : "s"})`;
      const error = wire.error(400, message);
      return sendJson(res, error.status, error.body);
    }
    const fault = selection.fault;
    if (fault?.type === "http") {
      const error = wire.error(fault.status, fault.message ?? `mock-llm: scripted HTTP ${fault.status}`);
      const headers: Record<string, string> =
        fault.retryAfter === undefined ? {} : { "retry-after": String(fault.retryAfter) };
      return sendJson(res, error.status, error.body, headers);
    }
    if (fault?.type === "delay" && !(await sleep(fault.ms, signal))) return;
    if (!(await sleep(turn.delayMs ?? 0, signal))) return;
    const answer = buildAnswer({
      turn,
      turnIndex: selection.turn,
      seq: record.seq,
      request: body,
      model: route.model,
      now: Date.now(),
    });
    if (stream) {
      const frames = wire.frames(answer);
      if (fault?.type === "cut") return sendCut(res, { frames }, fault.afterChunks);
      if (fault?.type === "stall") return sendStall(res, frames, fault.afterChunks, signal);
      return sendStream(res, frames, turn.chunkDelayMs ?? 0, signal);
    }
    const json = wire.json(answer);
    if (fault?.type === "cut") return sendCut(res, { json }, fault.afterChunks);
    if (fault?.type === "stall") return sendStall(res, undefined, undefined, signal);
    sendJson(res, 200, json);
  };

  const handleControl = async (req: IncomingMessage, res: ServerResponse, path: string) => {
    if (req.method === "GET" && path === "/_mock/requests") return sendJson(res, 200, requests);
    if (req.method === "POST" && path === "/_mock/reset") {
      server.reset();
      return sendJson(res, 200, { ok: true });
    }
    if (req.method === "POST" && path === "/_mock/script") {
      try {
        server.setScript(parseMockScript(await readJson(req)));
        return sendJson(res, 200, { ok: true });
      } catch (error) {
        return sendJson(res, 400, { error: { message: errorMessage(error) } });
      }
    }
    sendJson(res, 404, { error: { message: `mock-llm: no route ${req.method} ${path}` } });
  };

  const http = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://mock").pathname;
    const route = req.method === "POST" ? routeOf(path) : undefined;
    const handled = route ? handleModelRequest(req, res, path, route) : handleControl(req, res, path);
    handled.catch((error: unknown) => {
      if (res.headersSent) return res.destroy();
      sendJson(res, 500, { error: { message: `mock-llm: ${errorMessage(error)}` } });
    });
  });

  const port = await listen(http, options.port ?? 0, options.host ?? "127.0.0.1");
  const url = `http://${options.host ?? "127.0.0.1"}:${port}`;
  const server: MockLLMServer = {
    url,
    baseURL: `${url}/v1`,
    port,
    requests,
    env: () => ({
      ANTHROPIC_API_KEY: "mock-key",
      ANTHROPIC_BASE_URL: `${url}/v1`,
      OPENAI_API_KEY: "mock-key",
      OPENAI_BASE_URL: `${url}/v1`,
      OPENAI_COMPATIBLE_API_KEY: "mock-key",
      OPENAI_COMPATIBLE_BASE_URL: `${url}/v1`,
      GOOGLE_GENERATIVE_AI_API_KEY: "mock-key",
      GOOGLE_GENERATIVE_AI_BASE_URL: `${url}/v1beta`,
    }),
    setScript(next) {
      script = parseMockScript(next);
      selector.reset();
    },
    reset() {
      requests.length = 0;
      selector.reset();
    },
    close() {
      closing.abort();
      return new Promise((resolve, reject) => {
        http.close((error) => (error ? reject(error) : resolve()));
        http.closeAllConnections();
      });
    },
  };
  return server;
}

/** Aborts when the client disconnects before the answer is complete, or the server closes. */
function requestSignal(res: ServerResponse, closing: AbortSignal): AbortSignal {
  const controller = new AbortController();
  res.on("close", () => {
    if (!res.writableFinished) controller.abort();
  });
  return AbortSignal.any([controller.signal, closing]);
}

/** Read a request body as JSON; `undefined` if it is not valid JSON. */
async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  try {
    return JSON.parse(Buffer.concat(chunks).toString("utf8"));
  } catch {
    return undefined;
  }
}

function listen(http: ReturnType<typeof createServer>, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    http.once("error", (error) =>
      reject(new GyreError("config_error", `mock-llm: cannot listen on ${host}:${port}`, { cause: error })),
    );
    http.listen(port, host, () => resolve((http.address() as AddressInfo).port));
  });
}
