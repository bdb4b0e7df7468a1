import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;

export interface TruncateOptions {
  /** Where to keep the full text; when omitted, the cut part is only counted. */
  spillPath?: string;
}

/**
 * Cut `text` to at most about `limit` characters, keeping its head and tail (the end of
 * a build log is where the error is) with a note in the middle saying how much was cut
 * and where the full text was saved.
 */
export function truncateOutput(text: string, limit: number, options: TruncateOptions = {}): string {
  if (text.length <= limit) return text;
  const cut = text.length - limit;
  let where = "";
  if (options.spillPath) {
    try {
      mkdirSync(join(options.spillPath, ".."), { recursive: true });
      writeFileSync(options.spillPath, text);
      where = `; full output saved to ${options.spillPath}`;
    } catch {
      where = "";
    }
  }
  const head = Math.ceil(limit / 2);
  const tail = limit - head;
  const note = `\n\n... [${cut} characters truncated${where}] ...\n\n`;
  return text.slice(0, head) + note + text.slice(text.length - tail);
}

/** The default place for a call's full output when it is truncated. */
export function spillPathFor(sessionId: string, toolUseId: string): string {
  const safe = (s: string) => s.replace(/[^a-zA-Z0-9_-]/g, "_");
  return join(tmpdir(), "gyre-tool-output", safe(sessionId), `${safe(toolUseId)}.txt`);
}
