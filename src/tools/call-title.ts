/** Input fields that say what a call is about, most telling first: the built-in tools' names for them. */
const TITLE_FIELDS = ["command", "file_path", "notebook_path", "pattern", "url", "query", "description", "path"];

/** The longest title, in characters; a longer one ends in `…`. */
export const TITLE_MAX_CHARS = 80;

/**
 * A tool call's title, as OpenCode's tool parts have one: what the call is about — its
 * command, path, pattern or URL, else its first text field — on one line, at most
 * {@link TITLE_MAX_CHARS} characters. Empty when the input has no text at all.
 */
export function callTitle(input: unknown): string {
  if (typeof input !== "object" || input === null) return "";
  const fields = input as Record<string, unknown>;
  const named = TITLE_FIELDS.map((name) => fields[name]).find((value) => typeof value === "string" && value !== "");
  const about = named ?? Object.values(fields).find((value) => typeof value === "string");
  if (typeof about !== "string") return "";
  const line = about.replace(/\s+/g, " ").trim();
  return line.length > TITLE_MAX_CHARS ? `${line.slice(0, TITLE_MAX_CHARS - 1)}…` : line;
}
