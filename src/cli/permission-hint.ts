import type { PermissionUpdate } from "../permissions/index.js";
import type { PermissionHint, UnaskedCall } from "../run/index.js";

/** Where the person meets a denial: the command whose flags allow the call next time. */
export type HintedCommand = "gyre run" | "gyre mcp serve" | "gyre";

/**
 * What a denial says when a call needed asking and nobody could be asked, in the CLI's terms:
 * the `--allowed-tools` flag with the rule that allows the call, the settings file, `--add-dir`
 * or `--permission-mode acceptEdits` when those are what it needs, and `gyre trust` when the
 * folder's own allow rules were ignored because it is not trusted. The library's text (which
 * names `canUseTool`) is for programs, not for a person at a terminal.
 */
export function cliPermissionHint(command: HintedCommand): PermissionHint {
  return (call) => {
    const { rules, directories, acceptEdits } = waysToAllow(call);
    const flags = [
      ...(rules.length > 0 ? [`--allowed-tools ${shellQuote(rules.join(","))}`] : []),
      ...directories.map((directory) => `--add-dir ${shellQuote(directory)}`),
      ...(acceptEdits ? ["--permission-mode acceptEdits"] : []),
    ];
    const again = command === "gyre run" ? "run again with" : `start ${command} with`;
    const rule = rules.map((text) => JSON.stringify(text)).join(", ");
    const parts = [
      `To allow it, ${again} ${flags.join(" or ")}` +
        (rules.length > 0 ? `, or add ${rule} to permissions.allow in .gyre/settings.json.` : "."),
    ];
    if (command === "gyre") parts.push("Or leave dontAsk mode with Shift+Tab, and you are asked.");
    if (call.untrustedFolder !== undefined) {
      parts.push(
        `The allow rules of ${call.untrustedFolder}'s settings are ignored: the folder is not trusted (gyre trust ${shellQuote(call.untrustedFolder)} trusts it).`,
      );
    }
    return parts.join(" ");
  };
}

/**
 * The rules, folders and mode that would allow the call, from the updates `canUseTool` would
 * be offered: a call outside the workspace needs its folder added, not a rule.
 */
function waysToAllow(call: UnaskedCall): { rules: string[]; directories: string[]; acceptEdits: boolean } {
  const rules = call.suggestions.flatMap((update: PermissionUpdate) =>
    update.type === "addRules" && update.behavior === "allow"
      ? update.rules.map((rule) =>
          rule.ruleContent === undefined ? rule.toolName : `${rule.toolName}(${rule.ruleContent})`,
        )
      : [],
  );
  const directories = call.suggestions.flatMap((update) =>
    update.type === "addDirectories" ? update.directories : [],
  );
  const acceptEdits = call.suggestions.some((update) => update.type === "setMode" && update.mode === "acceptEdits");
  return { rules: rules.length > 0 || directories.length > 0 ? rules : [call.toolName], directories, acceptEdits };
}

/** In double quotes as people write it (`"Bash(npm test)"`), in single quotes when the shell would expand it. */
function shellQuote(text: string): string {
  if (/^[\w@%+=:,./-]+$/.test(text)) return text;
  if (!/["$`\\!]/.test(text)) return `"${text}"`;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
