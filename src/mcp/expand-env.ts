import type { McpFileServerConfig } from "./config-file-schema.js";

/** A string with `${VAR}` and `${VAR:-default}` replaced, and the variables that had neither a value nor a default. */
export interface Expanded {
  text: string;
  missing: string[];
}

const REFERENCE = /\$\{([^}]+)\}/g;

/**
 * Expands `${VAR}` and `${VAR:-default}` as Claude Code does in MCP configs: a variable set
 * to the empty string is used as it is; an unset one with a default takes the default; an
 * unset one without a default stays as written and is listed in `missing`.
 */
export function expandString(text: string, env: Readonly<Record<string, string | undefined>>): Expanded {
  const missing: string[] = [];
  const expanded = text.replace(REFERENCE, (reference, content: string) => {
    const split = content.indexOf(":-");
    const name = split === -1 ? content : content.slice(0, split);
    const value = env[name];
    if (value !== undefined) return value;
    if (split !== -1) return content.slice(split + 2);
    missing.push(name);
    return reference;
  });
  return { text: expanded, missing };
}

/**
 * A file's server config with every variable expanded where Claude Code expands them:
 * `command`, `args`, `env` values, `url` and `headers` values. `missing` lists each
 * variable that could not be expanded, once.
 */
export function expandServerConfig(
  config: McpFileServerConfig,
  env: Readonly<Record<string, string | undefined>>,
): { config: McpFileServerConfig; missing: string[] } {
  const missing = new Set<string>();
  const expand = (text: string) => {
    const result = expandString(text, env);
    for (const name of result.missing) missing.add(name);
    return result.text;
  };
  const expandValues = (record: Record<string, string> | undefined) =>
    record && Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expand(value)]));
  if (config.type === "http" || config.type === "sse") {
    const headers = expandValues(config.headers);
    return { config: { ...config, url: expand(config.url), ...(headers && { headers }) }, missing: [...missing] };
  }
  const serverEnv = expandValues(config.env);
  const expanded = {
    ...config,
    command: expand(config.command),
    ...(config.args && { args: config.args.map(expand) }),
    ...(serverEnv && { env: serverEnv }),
  };
  return { config: expanded, missing: [...missing] };
}
