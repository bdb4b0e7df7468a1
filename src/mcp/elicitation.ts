import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { ElicitRequestSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

/** A server asking the user for input (MCP `elicitation/create`), as `onElicitation` receives it. */
export interface ElicitationRequest {
  /** The server's key in `mcpServers`. */
  serverName: string;
  /** What the server asks, for the person. */
  message: string;
  /** `form`: answer `content` matching `requestedSchema`; `url`: the person opens `url` (nothing is answered in `content`). */
  mode: "form" | "url";
  /** The JSON Schema of the answer (form mode): an object of flat string, number, boolean and enum fields. */
  requestedSchema?: Record<string, unknown>;
  /** The page to open (URL mode). */
  url?: string;
  /** The server's id of a URL-mode elicitation. */
  elicitationId?: string;
}

/** The answer to an {@link ElicitationRequest}. */
export interface ElicitationResult {
  /** `accept`: the person answered; `decline`: they said no; `cancel`: they dismissed the question. */
  action: "accept" | "decline" | "cancel";
  /** The answer (form mode, `accept` only); checked against the requested schema before it is sent. */
  content?: Record<string, string | number | boolean | string[]>;
}

/**
 * Answers MCP servers' requests for user input (the Claude Agent SDK's `onElicitation`).
 * `signal` aborts when the run ends or the server withdraws the request.
 */
export type OnElicitation = (
  request: ElicitationRequest,
  options: { signal: AbortSignal },
) => Promise<ElicitationResult>;

/** What a client that can answer elicitations declares: both modes. */
export const ELICITATION_CAPABILITY = { elicitation: { form: {}, url: {} } };

let validator: AjvJsonSchemaValidator | undefined;

/**
 * Routes `server`'s elicitation requests on `client` to `onElicitation`. An accepted answer
 * that does not match the requested schema is never sent: the server gets an error instead.
 * The client must have been created with {@link ELICITATION_CAPABILITY}.
 */
export function answerElicitations(
  client: Client,
  server: string,
  onElicitation: OnElicitation,
  runSignal: AbortSignal,
): void {
  client.setRequestHandler(ElicitRequestSchema, async (request, extra) => {
    const params = request.params;
    const form = params.mode !== "url";
    const question: ElicitationRequest = {
      serverName: server,
      message: params.message,
      mode: form ? "form" : "url",
      ...("requestedSchema" in params && { requestedSchema: params.requestedSchema as Record<string, unknown> }),
      ...("url" in params && { url: params.url }),
      ...("elicitationId" in params && { elicitationId: params.elicitationId }),
    };
    const answer = await onElicitation(question, { signal: AbortSignal.any([runSignal, extra.signal]) });
    if (answer.action !== "accept") return { action: answer.action };
    if (!form) return { action: "accept" };
    const content = answer.content ?? {};
    if ("requestedSchema" in params) {
      validator ??= new AjvJsonSchemaValidator();
      const check = validator.getValidator(params.requestedSchema as Parameters<typeof validator.getValidator>[0]);
      const verdict = check(content);
      if (!verdict.valid) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `The answer to the elicitation does not match the requested schema: ${verdict.errorMessage}`,
        );
      }
    }
    return { action: "accept", content };
  });
}
