import { z } from "zod";
import { RequestError } from "./errors.js";

const PREFIX = "gyre-compaction-v1.";
const Payload = z.object({ text: z.string() });

/**
 * The `encrypted_content` of a compaction item Gyre made: the compacted conversation as text,
 * opaque to clients (base64url JSON), to be passed back unchanged. It is not a secret and not
 * signed: whatever it says, a client could as well have sent as a user message, and it comes
 * back only as text.
 */
export function compactionContent(text: string): string {
  return PREFIX + Buffer.from(JSON.stringify({ text }), "utf8").toString("base64url");
}

/** The text a compaction item carries; one that Gyre did not make is a 400 on `param`. */
export function compactedText(content: string, param: string): string {
  const invalid = () =>
    new RequestError(
      400,
      "This compaction item was not made by this server's /v1/responses/compact; pass its output back unchanged.",
      "invalid_encrypted_content",
      param,
    );
  if (!content.startsWith(PREFIX)) throw invalid();
  try {
    const parsed = Payload.safeParse(
      JSON.parse(Buffer.from(content.slice(PREFIX.length), "base64url").toString("utf8")),
    );
    if (parsed.success) return parsed.data.text;
  } catch {
    // falls through to the 400
  }
  throw invalid();
}
