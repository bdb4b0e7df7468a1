import { z } from "zod";

/** What Grep prints: matching file paths, matching lines, or per-file match counts. */
export const GrepOutputMode = z.enum(["content", "files_with_matches", "count"]);
export type GrepOutputMode = z.infer<typeof GrepOutputMode>;

/** One search, normalized from the tool input; both backends take exactly this. */
export interface SearchRequest {
  /** The regex, in ripgrep (Rust regex) syntax. */
  pattern: string;
  /** Absolute path of the file or directory searched. */
  root: string;
  /** Whether `root` is a single file (searched even if hidden, ignored or filtered out). */
  rootIsFile: boolean;
  /** How `root` is written in output paths: `""` for the cwd, else relative to it or absolute. */
  displayRoot: string;
  /** Working directory the display paths are relative to. */
  cwd: string;
  mode: GrepOutputMode;
  ignoreCase: boolean;
  /** rg `--glob` patterns, in order (a leading `!` excludes). */
  globs: string[];
  /** rg `--type` name, if any. */
  type: string | undefined;
  /** rg `-U --multiline-dotall`. */
  multiline: boolean;
  /** Context lines before and after each match (content mode only). */
  before: number;
  after: number;
  signal: AbortSignal;
  /**
   * Whether the walk may descend into a folder (absolute) at all: false for one the permission
   * rules hide entirely. A backend may skip it or not; what it finds is filtered per file anyway.
   */
  mayEnter?: (folder: string) => boolean;
}

/** A printed line of a file: a match or a context line. */
export interface OutputLine {
  /** 1-based line number. */
  line: number;
  /** The line's text without its line terminator. */
  text: string;
  match: boolean;
}

/**
 * What a backend found in one file. `count` is set in count mode (matching lines), `lines`
 * in content mode (ascending by line number); in files mode both are empty.
 */
export interface FileMatches {
  /** Path as shown to the model (see {@link SearchRequest.displayRoot}). */
  path: string;
  count: number;
  lines: OutputLine[];
}

/** A way to run a search: ripgrep or the JavaScript fallback. Results come in any order. */
export interface SearchBackend {
  readonly name: "ripgrep" | "js";
  search(request: SearchRequest): Promise<FileMatches[]>;
}
