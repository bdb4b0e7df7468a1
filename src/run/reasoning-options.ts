// The reasoning settings of `query()`: thinking and effort (options.ts types them, options-schema.ts checks them).
import { z } from "zod";

/** The Claude Agent SDK's thinking setting (see `thinkingProviderOptions`). */
export const ThinkingOption = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("adaptive"), display: z.enum(["summarized", "omitted"]).optional() }),
  z.strictObject({
    type: z.literal("enabled"),
    budgetTokens: z.number().int().positive().optional(),
    display: z.enum(["summarized", "omitted"]).optional(),
  }),
  z.strictObject({ type: z.literal("disabled") }),
]);
export type ThinkingOption = z.infer<typeof ThinkingOption>;

/** How much effort the model spends (Anthropic `effort`, OpenAI `reasoningEffort`). */
export const EffortOption = z.enum(["low", "medium", "high", "xhigh", "max"]);
export type EffortOption = z.infer<typeof EffortOption>;
