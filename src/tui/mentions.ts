import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { isAbsolute, join, relative, resolve } from "node:path";
import { errorMessage } from "../errors/index.js";
import type { UserContentBlock } from "../protocol/index.js";
import { readTool } from "../tools/builtin/index.js";
import { ToolSession } from "../tools/index.js";

/** At most this many entries of a mentioned folder are listed. */
const MAX_FOLDER_ENTRIES = 200;

/**
 * The `@path` mentions of a prompt, each once, in order: `@` at the start or after a space,
 * then the path up to the next space (`@"a b.txt"` for a path with spaces). A trailing
 * `.`, `,`, `:`, `;`, `!`, `?` or `)` ends a sentence, not the path.
 */
export function findMentions(prompt: string): string[] {
  const found: string[] = [];
  for (const match of prompt.matchAll(/(?:^|\s)@(?:"([^"]+)"|([^\s"]+))/g)) {
    const path = match[1] ?? (match[2] ?? "").replace(/[.,:;!?)]+$/, "");
    if (path !== "" && !found.includes(path)) found.push(path);
  }
  return found;
}

/** Says why a mentioned path (absolute) must not be attached, or nothing when it may be. */
export type MentionGate = (path: string, mention: string) => string | undefined | Promise<string | undefined>;

/** What a prompt sends once its mentions are read: the content blocks, and what could not be attached. */
export interface AttachedPrompt {
  content: string | UserContentBlock[];
  attached: string[];
  problems: string[];
}

/**
 * The prompt with the files it mentions attached after it, as Claude Code does: each file
 * as the Read tool gives it to the model (numbered lines, at most its first lines of a long
 * file with a note on how to read on, an image as an image; binary files and pipes refused
 * with Read's own message), a folder as a listing. Mentions of paths that do not exist stay
 * plain text (`@someone`); a file that cannot be read is named in `problems` and the model
 * is told why it is missing. `refuse` keeps a path out (a deny rule, say): it stays text and
 * is named in `problems`; the entries of a mentioned folder that it refuses are not listed.
 */
export async function attachMentions(
  prompt: string,
  cwd: string,
  options: { signal?: AbortSignal; refuse?: MentionGate } = {},
): Promise<AttachedPrompt> {
  const mentions = findMentions(prompt);
  const blocks: UserContentBlock[] = [{ type: "text", text: prompt }];
  const attached: string[] = [];
  const problems: string[] = [];
  const session = new ToolSession("mentions");
  try {
    for (const mention of mentions) {
      const path = isAbsolute(mention) ? mention : resolve(cwd, mention);
      const kind = await stat(path).catch(() => undefined);
      if (!kind) continue;
      const shown = relative(cwd, path) || ".";
      const refused = await options.refuse?.(path, mention);
      if (refused) {
        problems.push(`@${mention}: ${refused}`);
        continue;
      }
      try {
        blocks.push(
          ...(kind.isDirectory()
            ? await folderBlocks(path, shown, (entry) => options.refuse?.(entry, mention))
            : await fileBlocks(path, shown, cwd, session, options.signal)),
        );
        attached.push(shown);
      } catch (error) {
        problems.push(`@${mention}: ${errorMessage(error)}`);
        blocks.push({ type: "text", text: `(@${mention} was not attached: ${errorMessage(error)})` });
      }
    }
  } finally {
    await session.dispose();
  }
  return { content: attached.length === 0 && problems.length === 0 ? prompt : blocks, attached, problems };
}

async function fileBlocks(
  path: string,
  shown: string,
  cwd: string,
  session: ToolSession,
  signal: AbortSignal | undefined,
): Promise<UserContentBlock[]> {
  const output = await readTool().execute(
    { file_path: path },
    {
      cwd,
      signal: signal ?? new AbortController().signal,
      sessionId: session.id,
      toolUseId: `mention-${shown}`,
      session,
      reportProgress: () => {},
      emit: () => {},
    },
  );
  const content = typeof output === "string" ? output : output.content;
  const header: UserContentBlock = { type: "text", text: `Contents of ${shown} (attached with @${shown}):` };
  return typeof content === "string" ? [header, { type: "text", text: content }] : [header, ...content];
}

/** A folder's listing, without the entries `refuse` keeps out (a name a Read rule denies is not sent either). */
async function folderBlocks(
  path: string,
  shown: string,
  refuse: (entry: string) => string | undefined | Promise<string | undefined>,
): Promise<UserContentBlock[]> {
  const entries: Dirent[] = [];
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if ((await refuse(join(path, entry.name))) === undefined) entries.push(entry);
  }
  const names = entries
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort()
    .slice(0, MAX_FOLDER_ENTRIES);
  const more = entries.length > names.length ? `\n… and ${entries.length - names.length} more` : "";
  return [
    { type: "text", text: `Listing of the folder ${shown}/ (attached with @${shown}):\n${names.join("\n")}${more}` },
  ];
}
