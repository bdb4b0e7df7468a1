import { describe, expect, it } from "vitest";
import { RequestError } from "./errors.js";
import { parseBody, parseCreateRequest } from "./parse-request.js";
import { CreateConversationRequest, HOSTED_TOOL_TYPES } from "./request-schema.js";

const MODEL = "anthropic/claude-sonnet-4-5";

/** The 400 a body gets, as `{ code, param, message }`. */
function refusal(body: unknown): { code: string | null; param: string | null; message: string } {
  try {
    parseCreateRequest(body);
  } catch (error) {
    if (!(error instanceof RequestError)) throw error;
    expect(error.statusCode).toBe(400);
    return { code: error.wireCode, param: error.param, message: error.message };
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

describe("a refused request body, in the server's words", () => {
  it.each<[string, unknown, string, string | null, string]>([
    ["a missing model", { input: "hi" }, "missing_required_parameter", "model", "Missing required parameter: 'model'."],
    [
      "a body that is not an object",
      [],
      "invalid_type",
      null,
      "Invalid type for the request body: expected an object, but got an array instead.",
    ],
    [
      "an input of the wrong type",
      { model: MODEL, input: 42 },
      "invalid_type",
      "input",
      "Invalid type for 'input': expected a string or an array, but got an integer instead.",
    ],
    [
      "an unknown field",
      { model: MODEL, frobnicate: 1 },
      "unknown_parameter",
      "frobnicate",
      "Unknown parameter: 'frobnicate'.",
    ],
    [
      "an unknown field of a function tool",
      { model: MODEL, tools: [{ type: "function", name: "f", paramters: {} }] },
      "unknown_parameter",
      "tools[0].paramters",
      "Unknown parameter: 'tools[0].paramters'.",
    ],
    [
      "a number out of range",
      { model: MODEL, temperature: 3 },
      "invalid_value",
      "temperature",
      "Invalid value for 'temperature': expected at most 2, but got 3 instead.",
    ],
    [
      "an empty model",
      { model: "" },
      "invalid_value",
      "model",
      "Invalid value for 'model': expected a non-empty string, but got '' instead.",
    ],
    [
      "a value outside an enum",
      { model: MODEL, truncation: "sometimes" },
      "invalid_value",
      "truncation",
      "Invalid value for 'truncation': 'sometimes'. Supported values are: 'auto', 'disabled'.",
    ],
    [
      "a tool_choice that is none of its forms",
      { model: MODEL, tool_choice: "sometimes" },
      "invalid_value",
      "tool_choice",
      "Invalid value for 'tool_choice': expected 'auto', 'none', 'required' or an object, but got 'sometimes' instead.",
    ],
    [
      "an input item of an unknown type",
      { model: MODEL, input: [{ type: "teleport_call" }] },
      "invalid_value",
      "input[0].type",
      "Invalid value for 'input[0].type': 'teleport_call'. Supported values are: 'message', 'function_call', " +
        "'function_call_output', 'reasoning', 'item_reference', 'custom_tool_call', 'custom_tool_call_output', " +
        "'mcp_list_tools', 'mcp_call', 'mcp_approval_request', 'mcp_approval_response', 'compaction'.",
    ],
    [
      "a function name the schema words itself",
      { model: MODEL, tools: [{ type: "function", name: "a b" }] },
      "invalid_value",
      "tools[0].name",
      "Invalid value for 'tools[0].name': a function name is 1-64 letters, digits, underscores or dashes.",
    ],
    [
      "a metadata key too long",
      { model: MODEL, metadata: { ["k".repeat(65)]: "v" } },
      "invalid_value",
      "metadata",
      `Invalid key in 'metadata': expected a key of at most 64 characters, but got '${"k".repeat(60)}…'.`,
    ],
    [
      "a stored prompt template",
      { model: MODEL, prompt: { id: "pmpt_1" } },
      "unsupported_parameter",
      "prompt",
      "Unsupported parameter 'prompt': stored prompt templates are not available on this server; send instructions and input.",
    ],
  ])("%s", (_, body, code, param, message) => {
    expect(refusal(body)).toEqual({ code, param, message });
  });

  it("names a misspelt tool type and every type it takes, hosted ones included", () => {
    const { code, param, message } = refusal({ model: MODEL, tools: [{ type: "fuction", name: "f" }] });
    expect({ code, param }).toEqual({ code: "invalid_value", param: "tools[0].type" });
    expect(message).toMatch(
      /^Invalid value for 'tools\[0\]\.type': 'fuction'\. Supported values are: 'function', 'custom', 'mcp', /,
    );
    for (const type of HOSTED_TOOL_TYPES) expect(message).toContain(`'${type}'`);
    expect(refusal({ model: MODEL, tools: [{ name: "f" }] })).toMatchObject({
      code: "missing_required_parameter",
      param: "tools[0].type",
    });
  });

  it("never shows zod's own wording", () => {
    for (const body of [
      { input: "hi" },
      { model: MODEL, input: 42 },
      { model: MODEL, stream: "yes" },
      { model: MODEL, x: 1 },
    ])
      expect(refusal(body).message).not.toMatch(/Invalid input|received|Unrecognized key/);
  });

  it("accepts every hosted tool type and the spec's fields Gyre does not act on", () => {
    const request = parseCreateRequest({
      model: MODEL,
      input: "hi",
      tools: [
        ...HOSTED_TOOL_TYPES.map((type) => ({ type, anything: true })),
        { type: "function", name: "f", strict: true },
      ],
      presence_penalty: 0.5,
      frequency_penalty: 0,
      top_logprobs: 2,
      stream_options: { include_obfuscation: false },
      prompt_cache_retention: "24h",
      prompt_cache_options: { mode: "implicit" },
      context_management: [{ type: "compaction", compact_threshold: 1000 }],
      client_metadata: { session_id: "s" },
      prompt: null,
    });
    expect(request.tools).toHaveLength(HOSTED_TOOL_TYPES.length + 1);
  });

  it("refuses unknown fields of the conversation bodies too", () => {
    expect(() => parseBody(CreateConversationRequest, { itemz: [] })).toThrow("Unknown parameter: 'itemz'.");
  });
});
