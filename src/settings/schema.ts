import { z } from "zod";
import { PermissionMode } from "../permissions/index.js";

/** The `permissions` block of a settings file (Claude Code's shape; unknown keys kept). */
export const PermissionsSettings = z.looseObject({
  allow: z.array(z.string()).optional(),
  deny: z.array(z.string()).optional(),
  ask: z.array(z.string()).optional(),
  defaultMode: PermissionMode.optional(),
  additionalDirectories: z.array(z.string()).optional(),
});
export type PermissionsSettings = z.infer<typeof PermissionsSettings>;

/**
 * One settings file (`.gyre/settings.json` or Claude Code's `.claude/settings.json`).
 * Permissive: keys Gyre does not use are kept, so Claude Code files load unchanged.
 * `hooks` stays raw here; the hooks module validates it.
 */
export const SettingsFile = z.looseObject({
  permissions: PermissionsSettings.optional(),
  hooks: z.unknown().optional(),
  env: z.record(z.string(), z.string()).optional(),
  model: z.string().optional(),
});
export type SettingsFile = z.infer<typeof SettingsFile>;
