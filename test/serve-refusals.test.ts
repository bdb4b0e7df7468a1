// What gyre serve refuses and what it accepts, through the official `openai` client: a request
// it does not understand is a 400 naming the parameter (never a 200 that drops part of it), a
// model it cannot serve is OpenAI's 404 `model_not_found`, and hosted tool types OpenAI defines
// are accepted and left out.
import OpenAI, { BadRequestError } from "openai";
import { describe, expect, it } from "vitest";
import { HOSTED_TOOL_TYPES } from "../src/server/request-schema.js";
import { mockTurn } from "../src/testing/index.js";
import { upstreamBody, weatherTool, withServer } from "./serve-support.js";

const MODEL = "anthropic/claude-sonnet-4-5";

/** What the client threw for `request`: it must be the SDK's BadRequestError. */
async function badRequest(openai: OpenAI, request: Record<string, unknown>): Promise<BadRequestError> {
  const error: unknown = await openai.responses
    .create(request as unknown as OpenAI.Responses.ResponseCreateParamsNonStreaming)
    .then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
  if (!(error instanceof BadRequestError)) throw new Error(`expected a BadRequestError, got ${String(error)}`);
  return error;
}

describe("gyre serve refuses what it does not understand", () => {
  it("answers a misspelt or unknown tool type, an unknown field and a bad input with a 400 naming the param", async () => {
    await withServer({ turns: [mockTurn.text("never sent")] }, async ({ client, mock }) => {
      const openai = client();
      const cases: Array<[Record<string, unknown>, string, string, RegExp]> = [
        [
          { model: MODEL, input: "weather?", tools: [{ ...weatherTool, type: "fuction" }] },
          "tools[0].type",
          "invalid_value",
          /^Invalid value for 'tools\[0\]\.type': 'fuction'\. Supported values are: 'function', /,
        ],
        [
          { model: MODEL, input: "go", tools: [weatherTool, { type: "teleport" }] },
          "tools[1].type",
          "invalid_value",
          /'teleport'\. Supported values are: .*'web_search'/,
        ],
        [
          { model: MODEL, input: "hi", frobnicate: 1 },
          "frobnicate",
          "unknown_parameter",
          /^Unknown parameter: 'frobnicate'\.$/,
        ],
        [
          { model: MODEL, input: "hi", tools: [{ ...weatherTool, paramters: weatherTool.parameters }] },
          "tools[0].paramters",
          "unknown_parameter",
          /^Unknown parameter: 'tools\[0\]\.paramters'\.$/,
        ],
        [
          { model: MODEL, input: 42 },
          "input",
          "invalid_type",
          /^Invalid type for 'input': expected a string or an array, but got an integer instead\.$/,
        ],
        [{ input: "hi" }, "model", "missing_required_parameter", /^Missing required parameter: 'model'\.$/],
        [
          { model: MODEL, input: "hi", prompt: { id: "pmpt_123" } },
          "prompt",
          "unsupported_parameter",
          /^Unsupported parameter 'prompt': stored prompt templates/,
        ],
      ];
      for (const [request, param, code, message] of cases) {
        const error = await badRequest(openai, request);
        expect({ status: error.status, param: error.param, code: error.code, type: error.type }).toEqual({
          status: 400,
          param,
          code,
          type: "invalid_request_error",
        });
        expect(error.error).toMatchObject({ message: expect.stringMatching(message) });
        expect(JSON.stringify(error.error)).not.toMatch(/Invalid input|received undefined|Unrecognized key/);
      }
      // Nothing reached the model: no answer was made up without the tool.
      expect(mock.requests).toHaveLength(0);
    });
  });

  it("refuses the same over the compact and conversations endpoints", async () => {
    await withServer({ turns: [] }, async ({ client }) => {
      const openai = client();
      await expect(
        openai.responses.compact({
          model: MODEL,
          input: "hi",
          frobnicate: true,
        } as OpenAI.Responses.ResponseCompactParams),
      ).rejects.toMatchObject({ status: 400, param: "frobnicate", code: "unknown_parameter" });
      await expect(
        openai.conversations.create({
          metadata: { a: "b" },
          itemz: [],
        } as OpenAI.Conversations.ConversationCreateParams),
      ).rejects.toMatchObject({ status: 400, param: "itemz", code: "unknown_parameter" });
    });
  });
});

describe("gyre serve accepts what OpenAI defines", () => {
  it("takes every hosted tool type as Codex CLI sends them, and offers the model only the function", async () => {
    await withServer({ turns: [mockTurn.text("done without them")] }, async ({ client, mock }) => {
      const hosted = [
        { type: "web_search", external_web_access: true, search_content_types: ["text", "image"] },
        { type: "tool_search", execution: "client", description: "Searches deferred tools", parameters: {} },
        ...HOSTED_TOOL_TYPES.filter((type) => type !== "web_search" && type !== "tool_search").map((type) => ({
          type,
        })),
      ];
      const response = await client().responses.create({
        model: MODEL,
        input: "hi",
        tools: [...hosted, weatherTool] as OpenAI.Responses.Tool[],
        // Spec fields Gyre does not act on, and Codex CLI's own metadata.
        stream_options: null,
        top_logprobs: 0,
        prompt_cache_retention: "24h",
        context_management: [{ type: "compaction", compact_threshold: 200000 }],
        client_metadata: { session_id: "s-1" },
      } as OpenAI.Responses.ResponseCreateParamsNonStreaming);
      expect(response.status).toBe("completed");
      expect(response.output_text).toBe("done without them");
      const offered = (upstreamBody(mock, 0).tools ?? []) as Array<{ name?: string }>;
      expect(offered.map((tool) => tool.name)).toEqual(["get_weather"]);
    });
  });
});

describe("gyre serve's models", () => {
  it("answers a model it cannot serve with OpenAI's 404 model_not_found on model", async () => {
    await withServer({ turns: [] }, async ({ client, mock }) => {
      const openai = client();
      for (const model of ["teleport-9000", "nosuch/model", "xai/grok-4"]) {
        const error: unknown = await openai.responses.create({ model, input: "hi" }).catch((thrown: unknown) => thrown);
        expect(error).toBeInstanceOf(OpenAI.NotFoundError);
        expect(error).toMatchObject({
          status: 404,
          type: "invalid_request_error",
          code: "model_not_found",
          param: "model",
          message: expect.stringContaining(`The model '${model}' does not exist or is not served here`),
        });
      }
      expect(mock.requests).toHaveLength(0);
    });
  });

  it("lists, without a config, the priced models of the providers that have keys", async () => {
    await withServer({ turns: [] }, async ({ client }) => {
      const models = await client().models.list();
      const ids = models.data.map((model) => model.id);
      // The mock upstream gives Anthropic, OpenAI and Google keys, and no others.
      expect(ids).toEqual(expect.arrayContaining(["claude-sonnet-4-5", "gpt-5", "gemini-2.5-pro"]));
      expect(ids.some((id) => id.startsWith("xai/") || id.startsWith("deepseek/") || id.startsWith("grok"))).toBe(
        false,
      );
      expect(models.data.find((model) => model.id === "gpt-5")).toMatchObject({ object: "model", owned_by: "openai" });
    });
  });

  it("lists the config's names first, and the servable models when unlisted names may be asked for too", async () => {
    await withServer(
      { turns: [mockTurn.text("by its plain name")] },
      async ({ client }) => {
        const openai = client();
        const ids = (await openai.models.list()).data.map((model) => model.id);
        expect(ids[0]).toBe("house-model");
        expect(ids).toContain("claude-sonnet-4-5");
        expect((await openai.responses.create({ model: "claude-sonnet-4-5", input: "hi" })).output_text).toBe(
          "by its plain name",
        );
      },
      { models: [{ name: "house-model", model: "openai/gpt-5" }], onlyListedModels: false },
    );
  });
});
