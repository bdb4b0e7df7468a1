import { z } from "zod";

/** Glob's input, field for field as Claude Code's Glob tool takes it. */
export const GlobInput = z.strictObject({
  pattern: z.string().min(1).describe('The glob pattern to match files against, e.g. "**/*.ts" or "src/**/*.{js,jsx}"'),
  path: z
    .string()
    .optional()
    .describe(
      "The directory to search in, absolute or relative to the working directory. " +
        "Omit it to search the working directory.",
    ),
});
export type GlobInput = z.infer<typeof GlobInput>;
