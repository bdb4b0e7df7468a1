/** The text blocks of content joined (a prompt, an assistant answer, a tool result). */
export function joinedText(
  content: string | ReadonlyArray<{ type: string; text?: string }> | undefined,
  separator = "",
): string {
  if (content === undefined) return "";
  if (typeof content === "string") return content;
  return content.map((block) => (block.type === "text" ? (block.text ?? "") : "")).join(separator);
}
