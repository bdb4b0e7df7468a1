import { z } from "zod";
import { defineTool } from "../../define-tool.js";
import type { Tool, ToolResult } from "../../tool.js";
import { FetchFailed, fetchPage } from "./fetch-page.js";
import { RefusedHostError } from "./guarded-agent.js";
import { type CachedPage, sharedPageCache } from "./page-cache.js";
import { pageText } from "./page-text.js";
import { isAllowedHost } from "../../../net/index.js";
import {
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_CHARS,
  DEFAULT_TIMEOUT_MS,
  type WebFetchSettings,
} from "./web-fetch-settings.js";

/** WebFetch input, as in Claude Code. */
export const WebFetchInput = z.strictObject({
  url: z.url().describe("The URL to fetch content from"),
  prompt: z.string().describe("The prompt to run on the fetched content"),
  offset: z
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe(
      "Character position in the page text to start reading from. Use it to read on through a page too long for one call, with the value the previous result gave.",
    ),
});
export type WebFetchInput = z.infer<typeof WebFetchInput>;

/** What a call reports to its caller (`tool_use_result`): Claude Code's `WebFetchOutput`. */
export interface WebFetchOutput {
  /** Size of the fetched body in bytes (0 for a redirect reported). */
  bytes: number;
  /** The HTTP status. */
  code: number;
  /** The HTTP status text. */
  codeText: string;
  /** What the model was told: the small model's answer, the page text, or the redirect report. */
  result: string;
  /** Time the call took, the answer included. */
  durationMs: number;
  /** The URL fetched (after the upgrade to https). */
  url: string;
}

/**
 * Answers `prompt` about a page's text with a small model; `undefined` when the run has no
 * small model, and the page text itself is the result.
 */
export type PageAnswerer = (request: {
  url: string;
  prompt: string;
  content: string;
  signal: AbortSignal;
}) => Promise<string | undefined>;

/** How a WebFetch tool is built: its settings and the small model's answer. */
export interface WebFetchToolOptions {
  /** Limits, local hosts it may reach (`smallModel` is the caller's business: see `answer`). */
  settings?: WebFetchSettings;
  /** The small model's answer (see {@link PageAnswerer}); absent, the page text is the result. */
  answer?: PageAnswerer;
  /** The clock for `durationMs`. */
  now?: () => number;
}

const MAX_URL_LENGTH = 2000;

const DESCRIPTION = `Fetches a URL, turns the page into Markdown and answers the prompt about it with a small, fast model (without one, the page text itself is returned).

Usage notes:
- If an MCP tool that fetches web pages is available (its name starts with "mcp__"), prefer it: it may have fewer restrictions.
- The URL must be a complete, valid URL. http:// is upgraded to https://.
- The prompt says what to extract from the page.
- This tool only reads; it changes nothing.
- Pages on this machine or its private network, and pages behind a login, cannot be fetched.
- A long page is read in parts: the result says which offset to call again with.
- Pages are kept for 15 minutes: fetching a URL again in that time is fast.
- When a URL redirects to another host, the tool says so and gives the new URL instead of following it: call WebFetch again with that URL.`;

/** WebFetch (Claude Code compatible): fetch a page and answer a prompt about it. */
export function webFetchTool(options: WebFetchToolOptions = {}): Tool<WebFetchInput> {
  const settings = options.settings ?? {};
  const cache = sharedPageCache;
  const now = options.now ?? Date.now;
  const allowedLocalHosts = settings.allowedLocalHosts ?? [];
  return defineTool({
    name: "WebFetch",
    description: DESCRIPTION,
    inputSchema: WebFetchInput,
    sideEffect: "network",
    idempotent: true,
    execute: async (input, context): Promise<ToolResult> => {
      const started = now();
      const url = targetUrl(input.url, allowedLocalHosts);
      if (typeof url === "string") return { content: url, isError: true };
      let page: CachedPage | undefined = cache.get(url.href);
      if (!page) {
        try {
          const outcome = await fetchPage(url, {
            allowedLocalHosts,
            maxBytes: settings.maxBytes ?? DEFAULT_MAX_BYTES,
            timeoutMs: settings.timeoutMs ?? DEFAULT_TIMEOUT_MS,
            signal: context.signal,
          });
          if (outcome.kind === "redirect") {
            const result = redirectReport(outcome, input.prompt);
            const data: WebFetchOutput = {
              bytes: 0,
              code: outcome.code,
              codeText: outcome.codeText,
              result,
              durationMs: now() - started,
              url: url.href,
            };
            return { content: result, data };
          }
          const fetched = outcome.page;
          if (fetched.code < 200 || fetched.code >= 300) {
            return { content: `${fetched.url} answered ${fetched.code} ${fetched.codeText}.`, isError: true };
          }
          page = {
            url: fetched.url,
            text: await pageText(fetched),
            code: fetched.code,
            codeText: fetched.codeText,
            bytes: fetched.body.byteLength,
          };
          cache.set(url.href, page);
        } catch (error) {
          if (error instanceof FetchFailed || error instanceof RefusedHostError) {
            return { content: error.message, isError: true };
          }
          throw error;
        }
      }
      const part = pagePart(page.text, input.offset ?? 0, settings.maxChars ?? DEFAULT_MAX_CHARS);
      const answered = await options.answer?.({
        url: page.url,
        prompt: input.prompt,
        content: part.text,
        signal: context.signal,
      });
      const result = (answered ?? part.text) + part.note;
      const data: WebFetchOutput = {
        bytes: page.bytes,
        code: page.code,
        codeText: page.codeText,
        result,
        durationMs: now() - started,
        url: url.href,
      };
      return { content: result, data };
    },
  });
}

/**
 * The URL to fetch, or why not: http and https only, http upgraded to https unless the host
 * is one of `allowedLocalHosts` (local servers seldom have certificates).
 */
function targetUrl(raw: string, allowedLocalHosts: readonly string[]): URL | string {
  if (raw.length > MAX_URL_LENGTH) return `The URL is longer than ${MAX_URL_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw} is not a valid URL.`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `WebFetch fetches http and https URLs, not ${url.protocol}.`;
  if (url.username !== "" || url.password !== "") return "WebFetch does not fetch URLs with credentials in them.";
  const port = Number(url.port || 80);
  if (url.protocol === "http:" && !isAllowedHost(url.hostname.replace(/^\[|\]$/g, ""), port, allowedLocalHosts)) {
    url.protocol = "https:";
  }
  return url;
}

/** Up to `max` characters from `offset`, and a note saying where to read on when the page goes on. */
function pagePart(text: string, offset: number, max: number): { text: string; note: string } {
  if (offset >= text.length && text.length > 0) {
    return { text: "", note: `(The page has ${text.length} characters: offset ${offset} is past its end.)` };
  }
  const end = Math.min(text.length, offset + max);
  const note =
    end < text.length
      ? `\n\n(Characters ${offset} to ${end} of ${text.length}: call WebFetch again with offset ${end} to read on.)`
      : "";
  return { text: text.slice(offset, end), note };
}

function redirectReport(
  redirect: { from: string; to: string; code: number; codeText: string },
  prompt: string,
): string {
  return [
    "REDIRECT DETECTED: the URL redirects to a different host.",
    "",
    `Original URL: ${redirect.from}`,
    `Redirect URL: ${redirect.to}`,
    `Status: ${redirect.code} ${redirect.codeText}`.trimEnd(),
    "",
    "To read it, call WebFetch again with:",
    `- url: "${redirect.to}"`,
    `- prompt: "${prompt}"`,
  ].join("\n");
}
