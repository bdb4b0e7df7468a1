import type { AnyTool } from "../tool.js";

/**
 * The built-in tools' input JSON Schemas as the CLI's bundler computed them from these very
 * schemas (scripts/bundle-cli.mjs defines it); undefined in the library, which converts them at a
 * registry's first request. Converting them cost every `gyre run` ~5 ms of zod before its first
 * model request. Keyed by tool name, `Bash:sandboxed` for Bash's input when commands run sandboxed.
 */
declare const GYRE_BUILTIN_INPUT_SCHEMAS: Readonly<Record<string, Record<string, unknown>>> | undefined;

/** `tool` with the bundled JSON Schema of its input, when the bundle has one (Bash's as it runs: `sandboxed` or not). */
export function withBundledInputSchema<T extends AnyTool>(tool: T, sandboxed: boolean): T {
  const key = tool.name === "Bash" && sandboxed ? "Bash:sandboxed" : tool.name;
  const schema = typeof GYRE_BUILTIN_INPUT_SCHEMAS === "undefined" ? undefined : GYRE_BUILTIN_INPUT_SCHEMAS[key];
  return schema === undefined || tool.jsonSchema !== undefined ? tool : { ...tool, jsonSchema: schema };
}
