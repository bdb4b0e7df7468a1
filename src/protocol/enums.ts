import { z } from "zod";

// The value sets the messages share with the options and the session store: in a module of
// their own, so that code needing one of them does not build every message schema (the CLI's
// bundle leaves messages.ts out of a start that only reads these; scripts/bundle-cli.mjs).

/**
 * How tool calls that no rule decides are treated (Claude Code's permission modes):
 * - `default`: read-only tools inside the workspace run; everything else asks.
 * - `acceptEdits`: like `default`, and file edits inside the workspace run without asking.
 * - `plan`: only tools whose side effect is `none` or `read-only` run; the rest are denied.
 * - `bypassPermissions`: everything runs except what a deny or ask rule catches.
 * - `dontAsk`: like `default`, but whatever would ask is denied instead.
 */
export const PermissionMode = z.enum(["default", "acceptEdits", "plan", "bypassPermissions", "dontAsk"]);
export type PermissionMode = z.infer<typeof PermissionMode>;

/**
 * Where the API key came from, in the Claude Agent SDK's values: `ANTHROPIC_API_KEY` (that
 * variable), `user` (another variable or a `providers` entry), `none` (no key, or a model object).
 */
export const ApiKeySource = z.enum([
  "ANTHROPIC_API_KEY",
  "apiKeyHelper",
  "/login managed key",
  "none",
  "user",
  "project",
  "org",
  "temporary",
  "oauth",
]);
export type ApiKeySource = z.infer<typeof ApiKeySource>;

export const ResultSubtype = z.enum([
  "success",
  "error_max_turns",
  "error_max_budget_usd",
  "error_during_execution",
  "error_max_structured_output_retries",
]);
export type ResultSubtype = z.infer<typeof ResultSubtype>;

/**
 * Why the loop ended, finer than `subtype` (Gyre addition). `interrupted` is `Query.interrupt()`
 * (a person's interrupt); `aborted` is the caller's own `abortController` or signal firing (a
 * shutdown, a cancelled request), so the two can be told apart.
 */
export const TerminalReason = z.enum([
  "completed",
  "max_turns",
  "max_budget",
  "max_tokens",
  "refusal",
  "interrupted",
  "aborted",
  "model_error",
  "doom_loop",
  "hook_stopped",
  "tool_stopped",
  "permission_denied",
  "requires_action",
  "question",
  "context_overflow",
  "structured_output_missing",
]);
export type TerminalReason = z.infer<typeof TerminalReason>;
