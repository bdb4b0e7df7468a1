import type { SDKMessage } from "../protocol/index.js";
import type { LoadedSettings } from "../settings/index.js";

/** A rule list as /permissions shows it: each rule with the file (or option) it comes from. */
interface RuleLine {
  rule: string;
  source: string | undefined;
}

/**
 * What `/permissions` says: the mode, then the allow, ask and deny rules in effect, each with
 * where it comes from (a settings file or a command-line option), and what an untrusted
 * folder's settings asked for that was not applied.
 */
export function describePermissions(
  settings: LoadedSettings,
  options: { mode: string; allowedTools?: readonly string[]; disallowedTools?: readonly string[] },
): string {
  const lines = [`Permission mode: ${options.mode} (Shift+Tab cycles)`];
  const section = (title: string, rules: RuleLine[]) => {
    lines.push(`${title}:`);
    if (rules.length === 0) lines.push("  (none)");
    for (const { rule, source } of rules) lines.push(`  ${rule}${source ? `   ← ${source}` : ""}`);
  };
  const sourced = (list: ReadonlyArray<{ rule: string; source?: string }>): RuleLine[] =>
    list.map(({ rule, source }) => ({ rule, source }));
  const option = (list: readonly string[] | undefined, flag: string): RuleLine[] =>
    (list ?? []).map((rule) => ({ rule, source: flag }));
  section("Allow", [...sourced(settings.permissions.allow), ...option(options.allowedTools, "--allowed-tools")]);
  section("Ask", sourced(settings.permissions.ask));
  section("Deny", [...sourced(settings.permissions.deny), ...option(options.disallowedTools, "--disallowed-tools")]);
  if (settings.permissions.additionalDirectories.length > 0)
    lines.push(`Additional directories: ${settings.permissions.additionalDirectories.join(", ")}`);
  if (settings.ignored) {
    lines.push(`Not applied (${settings.ignored.folder} is not trusted; gyre trust to apply them):`);
    for (const file of settings.ignored.files) lines.push(`  ${file.path}: ${file.ignored.join(", ")}`);
  }
  return lines.join("\n");
}

/** What `/hooks` says: each configured command hook by event and matcher, with its file. */
export function describeHooks(settings: LoadedSettings): string {
  const lines: string[] = [];
  for (const { source, hooks } of settings.hooks) {
    if (!isRecord(hooks)) continue;
    for (const [event, matchers] of Object.entries(hooks)) {
      if (!Array.isArray(matchers)) continue;
      for (const entry of matchers) {
        if (!isRecord(entry)) continue;
        const matcher = typeof entry.matcher === "string" && entry.matcher !== "" ? entry.matcher : "*";
        const commands = Array.isArray(entry.hooks) ? entry.hooks : [];
        for (const hook of commands) {
          const what = isRecord(hook) && typeof hook.command === "string" ? hook.command : JSON.stringify(hook);
          lines.push(`  ${event} [${matcher}] ${what}   ← ${source}`);
        }
      }
    }
  }
  return lines.length === 0 ? "No hooks are configured." : ["Hooks:", ...lines].join("\n");
}

/** What `/mcp` says: each server, its status (and why it failed), and the tools it gives. */
export function describeMcp(
  servers: ReadonlyArray<{ name: string; status: string; error?: string }>,
  tools: readonly string[],
): string {
  if (servers.length === 0) return "No MCP servers are configured (.mcp.json, --mcp-config).";
  const lines = ["MCP servers:"];
  for (const server of servers) {
    const own = tools
      .filter((tool) => tool.startsWith(`mcp__${server.name}__`))
      .map((tool) => tool.slice(`mcp__${server.name}__`.length));
    lines.push(`  ${server.name}: ${server.status}${server.error ? ` (${server.error})` : ""}`);
    if (own.length > 0) lines.push(`    tools: ${own.join(", ")}`);
  }
  return lines.join("\n");
}

/**
 * `/plugins`: each plugin the run loaded with its folder and what it brought, found by its
 * namespace in the run's `init` (commands `/kit:x`, skills and agents `kit:x`, servers `plugin_kit_x`).
 */
export function describePlugins(
  init: Pick<
    Extract<SDKMessage, { type: "system"; subtype: "init" }>,
    "plugins" | "slash_commands" | "skills" | "agents" | "mcp_servers"
  >,
): string {
  if (init.plugins.length === 0) return "No plugins are loaded (--plugin-dir DIR loads one).";
  const lines = ["Plugins:"];
  for (const plugin of init.plugins) {
    const prefix = `${plugin.name}:`;
    const own = (names: readonly string[]) => names.filter((name) => name.startsWith(prefix));
    const server = `plugin_${plugin.name.replace(/[^\w-]/g, "_")}_`;
    const parts: Array<[string, string[]]> = [
      ["commands", own(init.slash_commands).map((name) => `/${name}`)],
      ["skills", own(init.skills)],
      ["agents", own(init.agents ?? [])],
      ["MCP servers", init.mcp_servers.filter((s) => s.name.startsWith(server)).map((s) => `${s.name} (${s.status})`)],
    ];
    lines.push(`  ${plugin.name}: ${plugin.path}`);
    for (const [what, names] of parts) if (names.length > 0) lines.push(`    ${what}: ${names.join(", ")}`);
  }
  return lines.join("\n");
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
