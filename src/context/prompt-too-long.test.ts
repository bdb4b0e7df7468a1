import { APICallError } from "@ai-sdk/provider";
import { describe, expect, it } from "vitest";
import { GyreError } from "../errors/index.js";
import { isPromptTooLongError } from "./prompt-too-long.js";

function apiError(statusCode: number, body: unknown, message = "Bad Request"): APICallError {
  return new APICallError({
    message,
    url: "https://api.example/v1/messages",
    requestBodyValues: {},
    statusCode,
    responseBody: JSON.stringify(body),
  });
}

const anthropicTooLong = apiError(
  400,
  {
    type: "error",
    error: { type: "invalid_request_error", message: "prompt is too long: 210345 tokens > 200000 maximum" },
  },
  "prompt is too long: 210345 tokens > 200000 maximum",
);
const openaiTooLong = apiError(400, {
  error: {
    message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
    type: "invalid_request_error",
    param: "messages",
    code: "context_length_exceeded",
  },
});

describe("isPromptTooLongError", () => {
  it("recognises Anthropic's and OpenAI's rejections", () => {
    expect(isPromptTooLongError(anthropicTooLong)).toBe(true);
    expect(isPromptTooLongError(openaiTooLong)).toBe(true);
    expect(isPromptTooLongError(apiError(400, { error: { code: "context_length_exceeded", message: "x" } }))).toBe(
      true,
    );
  });

  it("looks through a GyreError's cause", () => {
    const wrapped = new GyreError("model_error", "HTTP 400: Bad Request", {
      cause: openaiTooLong,
      statusCode: 400,
    });
    expect(isPromptTooLongError(wrapped)).toBe(true);
  });

  it("recognises an in-stream error part", () => {
    expect(
      isPromptTooLongError({
        type: "error",
        error: { type: "invalid_request_error", message: "prompt is too long" },
      }),
    ).toBe(true);
  });

  it("does not match other errors", () => {
    expect(isPromptTooLongError(apiError(400, { error: { message: "messages: field required" } }))).toBe(false);
    expect(isPromptTooLongError(apiError(429, { error: { message: "prompt is too long" } }))).toBe(false);
    expect(isPromptTooLongError(apiError(500, { error: { message: "maximum context length" } }))).toBe(false);
    expect(isPromptTooLongError(new Error("boom"))).toBe(false);
    expect(isPromptTooLongError(undefined)).toBe(false);
    expect(isPromptTooLongError("prompt")).toBe(false);
  });
});
