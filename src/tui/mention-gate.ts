import { errorMessage } from "../errors/index.js";
import type { QueryOptions } from "../run/index.js";
import { PermissionPolicy } from "../permissions/index.js";
import { loadSettings } from "../settings/index.js";
import type { MentionGate } from "./mentions.js";

/**
 * Which `@path`s may be attached, judged as a Read of that path by the session's rules: a
 * deny rule keeps any path out; a path the person did not type themselves (it comes from a
 * command file, which may be a cloned repository's) is attached only when Read would run
 * without asking, so a command file cannot send `~/.ssh` or a denied `.env` to the model.
 */
export async function mentionGate(options: QueryOptions, cwd: string, typed: readonly string[]): Promise<MentionGate> {
  let policy: PermissionPolicy;
  try {
    const settings = await loadSettings({
      cwd,
      sources: options.settingSources ?? [],
      requireTrust: options.requireProjectTrust ?? false,
    });
    policy = PermissionPolicy.fromSettings(settings, {
      cwd,
      deny: options.disallowedTools ?? [],
      additionalDirectories: options.additionalDirectories ?? [],
    });
  } catch (error) {
    const why = `not attached: the settings cannot be read (${errorMessage(error)})`;
    return () => why;
  }
  return (path, mention) => {
    const decision = policy.evaluate({ toolName: "Read", input: { file_path: path }, sideEffect: "read-only", cwd });
    if (decision.behavior === "deny") return decision.message;
    if (decision.behavior !== "allow" && !typed.includes(mention))
      return "named by the command file, not typed by you, and Read would have to ask for it";
    return undefined;
  };
}
