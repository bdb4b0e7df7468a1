import { z } from "zod";

const paths = z.array(z.string());

/**
 * The `sandbox` block of a settings file and the `sandbox` option of `query()`, in Claude
 * Code's shape. Filesystem limits come from `filesystem` and from permission rules as Claude
 * Code maps them: `Read(...)` deny rules are unreadable, `Edit(...)` allow rules writable,
 * `Edit(...)` deny rules read-only.
 */
export const SandboxSettings = z.looseObject({
  /** Run Bash inside the OS sandbox (bubblewrap on Linux). Default false. */
  enabled: z.boolean().optional(),
  /** Sandboxed Bash commands run without asking; deny and ask rules still apply. Default true, as in Claude Code. */
  autoAllowBashIfSandboxed: z.boolean().optional(),
  /** Commands (by first word, or a prefix such as `docker compose`) that never run sandboxed; they go through the permission check. */
  excludedCommands: z.array(z.string()).optional(),
  /** Whether Bash's `dangerouslyDisableSandbox: true` is honoured (then the call goes through the permission check). Default true, as in Claude Code. */
  allowUnsandboxedCommands: z.boolean().optional(),
  network: z
    .looseObject({
      /** Hosts commands may reach through the sandbox's HTTP/HTTPS proxy: `example.com`, `*.example.com`, `localhost:8080`. */
      allowedDomains: z.array(z.string()).optional(),
      /** Unix sockets (paths) commands may connect to; others under /run are hidden. */
      allowUnixSockets: paths.optional(),
      /** Let commands listen on local ports, in the sandbox's own network namespace (never reachable from the host); without it `listen` fails. */
      allowLocalBinding: z.boolean().optional(),
    })
    .optional(),
  filesystem: z
    .looseObject({
      /** Paths commands cannot read (on top of the defaults: ~/.ssh, ~/.aws, ~/.gnupg, …, `.env*` above the workspace). */
      denyRead: paths.optional(),
      /** Paths commands may write besides the workspace and the sandbox's temp. */
      allowWrite: paths.optional(),
      /** Paths commands may not write even inside the workspace. */
      denyWrite: paths.optional(),
    })
    .optional(),
});
export type SandboxSettings = z.infer<typeof SandboxSettings>;

/**
 * Merge `sandbox` blocks, lowest precedence first: scalars from the last block that sets
 * them, lists concatenated (a later file adds to, never silently drops, what an earlier one
 * denied).
 */
export function mergeSandboxSettings(blocks: readonly SandboxSettings[]): SandboxSettings {
  const merged: SandboxSettings = {};
  for (const block of blocks) {
    const { network, filesystem, excludedCommands, ...scalars } = block;
    Object.assign(merged, scalars);
    if (excludedCommands) merged.excludedCommands = [...(merged.excludedCommands ?? []), ...excludedCommands];
    if (network) merged.network = mergeLists(merged.network ?? {}, network);
    if (filesystem) merged.filesystem = mergeLists(merged.filesystem ?? {}, filesystem);
  }
  return merged;
}

function mergeLists<T extends Record<string, unknown>>(base: T, next: T): T {
  const result: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(next)) {
    const before = result[key];
    result[key] = Array.isArray(value) && Array.isArray(before) ? [...before, ...value] : value;
  }
  return result as T;
}
