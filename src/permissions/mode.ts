import { z } from "zod";

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
