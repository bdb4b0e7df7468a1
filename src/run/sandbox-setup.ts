import { homedir } from "node:os";
import path from "node:path";
import { GyreError } from "../errors/index.js";
import { mergeSandboxSettings, OsSandbox, resolvePolicy, SandboxSettings } from "../sandbox/index.js";
import type { LoadedSettings } from "../settings/index.js";
import type { QueryOptions } from "./options.js";

/**
 * The run's OS sandbox when the settings files' `sandbox` blocks and the `sandbox` option
 * (applied last) enable it; undefined otherwise. It cannot start → `sandbox_unavailable`,
 * before any tool runs. The caller closes it when the session ends.
 */
export async function startRunSandbox(
  options: QueryOptions,
  settings: LoadedSettings,
  cwd: string,
): Promise<OsSandbox | undefined> {
  const blocks = settings.files.flatMap((file) => {
    if (file.settings.sandbox === undefined) return [];
    const parsed = SandboxSettings.safeParse(file.settings.sandbox);
    if (!parsed.success) {
      throw new GyreError("config_error", `${file.path}: invalid "sandbox" settings: ${parsed.error.message}`);
    }
    return [parsed.data];
  });
  const merged = mergeSandboxSettings([...blocks, ...(options.sandbox ? [options.sandbox] : [])]);
  if (merged.enabled !== true) return undefined;
  const disallowed = options.disallowedTools ?? [];
  const policy = resolvePolicy({
    settings: merged,
    workspace: [cwd, ...settings.permissions.additionalDirectories, ...(options.additionalDirectories ?? [])],
    rules: {
      allow: [...settings.permissions.allow, ...(options.allowedTools ?? []).map((rule) => ({ rule }))],
      deny: [...settings.permissions.deny, ...disallowed.map((rule) => ({ rule }))],
    },
    cwd,
    home: homedir(),
    stateDirectories: stateDirectories({ ...process.env, ...options.env }),
  });
  return OsSandbox.start({ policy, searchPath: options.env?.PATH ?? process.env.PATH });
}

/** Where Gyre keeps sessions and trust records when the environment moves them from ~/.gyre. */
function stateDirectories(env: Record<string, string | undefined>): string[] {
  return [env.GYRE_HOME, env.XDG_DATA_HOME && path.join(env.XDG_DATA_HOME, "gyre")].filter(
    (dir): dir is string => typeof dir === "string" && path.isAbsolute(dir),
  );
}
