import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { GyreError } from "../errors/index.js";
import type { APIAssistantMessage } from "../protocol/index.js";
import { classifyModelError, streamEndedEarly } from "./classify-error.js";
import { ModelCallError } from "./model-call-error.js";
import { retryAfterMs } from "./retry-after.js";

function apiError(
  statusCode: number,
  options: { body?: unknown; message?: string; headers?: Record<string, string> } = {},
) {
  return new APICallError({
    message: options.message ?? `status ${statusCode}`,
    url: "https://api.example/v1/messages",
    requestBodyValues: {},
    statusCode,
    responseHeaders: options.headers ?? {},
    responseBody: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

const ANTHROPIC_TOO_LONG = "prompt is too long: 210345 tokens > 200000 maximum";
const OPENAI_TOO_LONG =
  "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.";

describe("classifyModelError: HTTP statuses", () => {
  it.each([
    [400, "model_bad_request", false],
    [401, "model_auth_error", false],
    [402, "model_error", false],
    [403, "model_auth_error", false],
    [404, "model_bad_request", false],
    [408, "model_error", true],
    [409, "model_error", true],
    [413, "model_bad_request", false],
    [422, "model_bad_request", false],
    [425, "model_error", true],
    [429, "model_rate_limited", true],
    [500, "model_server_error", true],
    [502, "model_server_error", true],
    [503, "model_server_error", true],
    [504, "model_server_error", true],
    [529, "model_overloaded", true],
  ] as const)("HTTP %i is %s (retryable: %s)", (status, code, retryable) => {
    const error = classifyModelError(apiError(status));
    expect(error).toBeInstanceOf(ModelCallError);
    expect(error).toMatchObject({ code, retryable, statusCode: status, message: `HTTP ${status}: status ${status}` });
  });

  it("keeps the server's retry-after", () => {
    expect(classifyModelError(apiError(429, { headers: { "retry-after": "7" } })).retryAfterMs).toBe(7000);
  });

  it("sees a 2xx whose body broke off as a retryable cut stream", () => {
    const cut = new APICallError({
      message: "Failed to process successful response",
      url: "x",
      requestBodyValues: {},
      statusCode: 200,
    });
    expect(classifyModelError(cut)).toMatchObject({
      code: "model_stream_error",
      retryable: true,
      statusCode: undefined,
    });
  });
});

describe("classifyModelError: prompt too long", () => {
  it.each([
    [
      "Anthropic's 400",
      apiError(400, {
        body: { type: "error", error: { type: "invalid_request_error", message: ANTHROPIC_TOO_LONG } },
        message: ANTHROPIC_TOO_LONG,
      }),
    ],
    [
      "OpenAI's 400",
      apiError(400, {
        body: {
          error: {
            message: OPENAI_TOO_LONG,
            type: "invalid_request_error",
            param: "messages",
            code: "context_length_exceeded",
          },
        },
        message: "Bad Request",
      }),
    ],
    ["OpenAI's code alone", apiError(400, { body: { error: { code: "context_length_exceeded", message: "x" } } })],
    ["a 413 saying so", apiError(413, { body: { error: { message: "input is too long" } } })],
    [
      "Anthropic's in-stream error",
      { type: "error", error: { type: "invalid_request_error", message: "prompt is too long" } },
    ],
    ["OpenAI's in-stream error", { type: "error", code: "context_length_exceeded", message: "too big" }],
    ["a plain error", new Error(ANTHROPIC_TOO_LONG)],
  ])("recognises %s", (_, error) => {
    expect(classifyModelError(error)).toMatchObject({ code: "model_prompt_too_long", retryable: false });
  });

  it.each([
    ["another 400", apiError(400, { body: { error: { message: "messages: field required" } } }), "model_bad_request"],
    [
      "a 429 that mentions it",
      apiError(429, { body: { error: { message: "prompt is too long" } } }),
      "model_rate_limited",
    ],
    [
      "a 500 that mentions it",
      apiError(500, { body: { error: { message: "maximum context length" } } }),
      "model_server_error",
    ],
    ["an unrelated error", new Error("boom"), "model_error"],
  ])("does not mistake %s for it", (_, error, code) => {
    expect(classifyModelError(error).code).toBe(code);
  });
});

describe("classifyModelError: in-stream error parts", () => {
  it.each([
    [{ type: "overloaded_error", message: "Overloaded" }, "model_overloaded", true, "overloaded_error"],
    [
      { type: "error", error: { type: "overloaded_error", message: "Overloaded" } },
      "model_overloaded",
      true,
      "overloaded_error",
    ],
    [{ type: "rate_limit_error", message: "slow down" }, "model_rate_limited", true, "rate_limit_error"],
    [{ type: "api_error", message: "Internal" }, "model_server_error", true, "api_error"],
    [{ type: "error", code: "server_error", message: "oops" }, "model_server_error", true, "server_error"],
    [{ type: "authentication_error", message: "bad key" }, "model_auth_error", false, "authentication_error"],
    [{ type: "invalid_request_error", message: "bad" }, "model_bad_request", false, "invalid_request_error"],
    [{ type: "strange_error", message: "?" }, "model_stream_error", false, "strange_error"],
  ])("%j is %s (retryable: %s)", (part, code, retryable, type) => {
    const error = classifyModelError(part);
    expect(error).toMatchObject({ code, retryable, statusCode: undefined });
    expect(error.message).toMatch(new RegExp(`^Model stream error \\(${type}\\): `));
  });
});

describe("classifyModelError: connections, aborts and known errors", () => {
  it("retries connection resets, however deep the socket error sits", () => {
    const reset = new TypeError("fetch failed", {
      cause: Object.assign(new Error("socket hang up"), { code: "ECONNRESET" }),
    });
    expect(classifyModelError(reset)).toMatchObject({
      code: "model_stream_error",
      retryable: true,
      message: "Connection to the model failed: fetch failed: socket hang up",
    });
    expect(classifyModelError(Object.assign(new Error("x"), { code: "ECONNREFUSED" })).retryable).toBe(true);
    expect(classifyModelError(new Error("terminated")).code).toBe("model_stream_error");
  });

  it("is aborted whenever the call's signal fired, whatever was thrown", () => {
    expect(classifyModelError(apiError(500), { aborted: true })).toMatchObject({ code: "aborted", retryable: false });
    expect(classifyModelError(new DOMException("x", "AbortError"), { aborted: true }).code).toBe("aborted");
    const partial = { id: "m" } as APIAssistantMessage;
    const cut = new ModelCallError("model_stream_error", "cut", { retryable: true, partial });
    expect(classifyModelError(cut, { aborted: true })).toMatchObject({ code: "aborted", partial });
  });

  it("keeps a classified error and adds the partial message", () => {
    const partial = { id: "m" } as APIAssistantMessage;
    const ended = streamEndedEarly();
    expect(classifyModelError(ended)).toBe(ended);
    const withPartial = classifyModelError(ended, { partial });
    expect(withPartial).toMatchObject({ code: "model_stream_error", retryable: true, partial });
    const other = classifyModelError(new GyreError("model_auth_error", "no", { statusCode: 401 }), { partial });
    expect(other).toMatchObject({ code: "model_auth_error", statusCode: 401, partial });
  });
});

describe("retry-after parsing", () => {
  it("reads seconds, HTTP dates and retry-after-ms", () => {
    expect(retryAfterMs({ "Retry-After": "2" })).toBe(2000);
    expect(retryAfterMs({ "retry-after-ms": "150" })).toBe(150);
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs({ "retry-after": "Thu, 01 Jan 2026 00:00:05 GMT" }, now)).toBe(5000);
    expect(retryAfterMs({ "retry-after": "soon" })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });
});
