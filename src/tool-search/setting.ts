import { GyreError } from "../errors/index.js";

/**
 * When MCP tools are deferred behind ToolSearch: `always`, or `auto` once their definitions
 * would take more than `percent` of the model's context window. Off is no setting at all.
 */
export type ToolSearchSetting = { mode: "always" } | { mode: "auto"; percent: number };

/** The `toolSearch` option's values, which are also `ENABLE_TOOL_SEARCH`'s (Claude Code's variable). */
export type ToolSearchOption = boolean | "auto" | `auto:${number}`;

/** Claude Code's default share: MCP tool definitions past 10% of the context window are deferred. */
export const DEFAULT_TOOL_SEARCH_PERCENT = 10;

const TRUE = new Set(["true", "1", "yes", "on"]);
const FALSE = new Set(["false", "0", "no", "off"]);

/**
 * The setting a value of the `toolSearch` option or of `ENABLE_TOOL_SEARCH` asks for: `true`
 * always, `false` never (undefined), `"auto"` past 10% of the context window, `"auto:N"` past
 * N%. Unset: `auto`. Anything else is a `config_error` naming where it came from.
 */
export function parseToolSearch(
  value: ToolSearchOption | string | undefined,
  from: string,
): ToolSearchSetting | undefined {
  if (value === undefined || value === "") return { mode: "auto", percent: DEFAULT_TOOL_SEARCH_PERCENT };
  if (value === true) return { mode: "always" };
  if (value === false) return undefined;
  const text = value.trim().toLowerCase();
  if (TRUE.has(text)) return { mode: "always" };
  if (FALSE.has(text)) return undefined;
  if (text === "auto") return { mode: "auto", percent: DEFAULT_TOOL_SEARCH_PERCENT };
  const share = /^auto:(\d+(?:\.\d+)?)$/.exec(text);
  if (share && Number(share[1]) <= 100) return { mode: "auto", percent: Number(share[1]) };
  throw new GyreError(
    "config_error",
    `${from} must be true, false, "auto" or "auto:N" (N a percentage of the context window, 0 to 100), not ${JSON.stringify(value)}`,
  );
}
