import { z } from "zod";
import { GyreError } from "../errors/index.js";
import { UserContentBlock } from "../protocol/index.js";
import type { QueryPrompt } from "./options.js";

/** What the loop reads of a streamed prompt message; the rest (ids, flags) the run stamps itself. */
const PromptMessage = z.looseObject({
  type: z.literal("user"),
  message: z.looseObject({ role: z.literal("user"), content: z.union([z.string(), z.array(UserContentBlock)]) }),
});

/** Hook context rides along with the prompt it belongs to. */
export function withContext(content: string | UserContentBlock[], context: string[]): string | UserContentBlock[] {
  if (context.length === 0) return content;
  const blocks: UserContentBlock[] = typeof content === "string" ? [{ type: "text", text: content }] : [...content];
  for (const text of context) blocks.push({ type: "text", text: `<system-reminder>\n${text}\n</system-reminder>` });
  return blocks;
}

/** The prompt's user turns: one for a string, each message of a stream in order. */
export async function* userTurns(prompt: QueryPrompt): AsyncGenerator<string | UserContentBlock[]> {
  if (typeof prompt === "string") {
    yield prompt;
    return;
  }
  let index = 0;
  for await (const message of prompt) {
    const parsed = PromptMessage.safeParse(message);
    if (!parsed.success) {
      const problem = parsed.error.issues[0];
      const where = ["message", ...(problem?.path ?? []).map(String)].join(".");
      throw new GyreError(
        "invalid_prompt",
        `Prompt message ${index} is not a user message: ${where}: ${problem?.message ?? "invalid"}. ` +
          `Expected { type: "user", message: { role: "user", content } }.`,
      );
    }
    index++;
    // The caller's own blocks, not the parsed copy: parsing drops fields the schema does not name.
    yield message.message.content;
  }
}
