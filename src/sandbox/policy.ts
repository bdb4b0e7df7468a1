import { existsSync, realpathSync } from "node:fs";
import path from "node:path";
import { envFileFolders } from "./env-files.js";
import { nestedRepositories } from "./nested-repositories.js";
import { DEFAULT_DENY_READ, mountPath, type PathAnchors, rulePath } from "./paths.js";
import type { SandboxSettings } from "./settings.js";

/** A permission rule with the settings file it came from (as `loadSettings` gives them). */
export interface SandboxRule {
  rule: string;
  root?: string;
}

/** What a sandboxed command may touch, resolved to concrete paths once per run. */
export interface SandboxPolicy {
  /** Writable: the workspace directories, then `allowWrite` and `Edit(...)` allow rules. */
  writable: string[];
  /** Unreadable (and unwritable). */
  denyRead: string[];
  /**
   * Denied paths that did not exist when the run started (`~/.ssh` before the first ssh-keygen):
   * checked before every command and hidden as soon as one appears.
   */
  denyReadMissing: string[];
  /** Read-only even inside a writable directory. */
  denyWrite: string[];
  /** Git repositories inside the workspace, found when the run started: their `.git` is protected too. */
  nestedRepositories: string[];
  /** Folders whose `.env*` files are unreadable: home and those above the workspace (see env-files.ts). */
  envFileFolders: string[];
  /** `host`, `*.host`, optionally with `:port`; empty: no network at all. */
  allowedDomains: string[];
  allowUnixSockets: string[];
  allowLocalBinding: boolean;
  excludedCommands: string[];
  allowUnsandboxedCommands: boolean;
  autoAllowBashIfSandboxed: boolean;
}

export interface PolicyInput {
  settings: SandboxSettings;
  /** cwd first, then additional directories. */
  workspace: readonly string[];
  rules: { allow: readonly SandboxRule[]; deny: readonly SandboxRule[] };
  cwd: string;
  home: string;
  /** More unreadable paths: Gyre's state folders named by the environment (`GYRE_HOME`). */
  stateDirectories?: readonly string[];
}

/** Resolve settings and permission rules (as Claude Code maps them) to a policy. */
export function resolvePolicy(input: PolicyInput): SandboxPolicy {
  const { settings } = input;
  const anchors: PathAnchors = { cwd: input.cwd, home: input.home };
  const fromList = (list: readonly string[] | undefined) =>
    (list ?? []).flatMap((entry) => present(mountPath(entry, anchors)));
  const fromRules = (rules: readonly SandboxRule[], family: "read" | "edit") =>
    rules.flatMap(({ rule, root }) => {
      const content = rulePath(rule, family);
      return content === undefined ? [] : present(mountPath(content, { ...anchors, root: root ?? input.cwd }));
    });
  const filesystem = settings.filesystem ?? {};
  const network = settings.network ?? {};
  const deniedRules = (list: readonly string[] | undefined) =>
    (list ?? []).flatMap((entry) => absent(mountPath(entry, anchors)));
  const denyReadMissing = unique([
    ...deniedRules(DEFAULT_DENY_READ),
    ...deniedRules(input.stateDirectories),
    ...deniedRules(filesystem.denyRead),
    ...input.rules.deny.flatMap(({ rule, root }) => {
      const content = rulePath(rule, "read");
      return content === undefined ? [] : absent(mountPath(content, { ...anchors, root: root ?? input.cwd }));
    }),
  ]);
  const workspace = input.workspace.map(real);
  return {
    denyReadMissing,
    writable: unique([...workspace, ...fromList(filesystem.allowWrite), ...fromRules(input.rules.allow, "edit")]),
    denyRead: unique([
      ...fromList(DEFAULT_DENY_READ),
      ...fromList(input.stateDirectories),
      ...fromList(filesystem.denyRead),
      ...fromRules(input.rules.deny, "read"),
    ]),
    denyWrite: unique([...fromList(filesystem.denyWrite), ...fromRules(input.rules.deny, "edit")]),
    nestedRepositories: unique(workspace.flatMap(nestedRepositories)),
    envFileFolders: envFileFolders(workspace, real(input.home)),
    allowedDomains: network.allowedDomains ?? [],
    allowUnixSockets: unique(fromList(network.allowUnixSockets)),
    allowLocalBinding: network.allowLocalBinding ?? false,
    excludedCommands: settings.excludedCommands ?? [],
    allowUnsandboxedCommands: settings.allowUnsandboxedCommands ?? true,
    autoAllowBashIfSandboxed: settings.autoAllowBashIfSandboxed ?? true,
  };
}

/** Whether `command` starts with one of the excluded commands (a word or a prefix of words). */
export function isExcluded(command: string, excluded: readonly string[]): boolean {
  const text = command.trim();
  return excluded.some((entry) => {
    const prefix = entry.trim().replace(/:\*$/, "");
    return prefix !== "" && (text === prefix || text.startsWith(`${prefix} `));
  });
}

/** Only paths that exist can be mounted; symlinks resolved so the mount lands on the real file. */
function present(file: string | undefined): string[] {
  return file !== undefined && existsSync(file) ? [real(file)] : [];
}

/** A path that does not exist (yet), through the real path of its nearest existing folder. */
function absent(file: string | undefined): string[] {
  if (file === undefined || existsSync(file)) return [];
  let existing = file;
  while (!existsSync(existing) && path.dirname(existing) !== existing) existing = path.dirname(existing);
  return [path.join(real(existing), path.relative(existing, file))];
}

function real(file: string): string {
  try {
    return realpathSync.native(file);
  } catch {
    return path.resolve(file);
  }
}

const unique = (list: string[]) => [...new Set(list)];
