import { type Dirent, readdirSync } from "node:fs";
import { setImmediate as yieldToEventLoop } from "node:timers/promises";
import { IgnoreRules } from "./ignore-rules.js";
import { type Entry, PathFilter } from "./path-filter.js";
import { compilePattern } from "./regex-translate.js";
import { type FileSearch, searchFile } from "./search-file.js";
import type { FileMatches, SearchBackend, SearchRequest } from "./types.js";

/** The walk gives the event loop a turn (and checks for abort) at least this often. */
const SLICE_MS = 10;

interface Folder {
  path: string;
  display: string;
  rules: IgnoreRules;
}

/**
 * The JavaScript backend, for machines without ripgrep: the same walk rules (ignore files,
 * hidden names, `--glob`, `--type`), binary files skipped, JavaScript regexes translated
 * from rg syntax (see `compilePattern` for what differs), files streamed. File system work
 * is synchronous in time slices of ~10 ms (see `searchFile` for why), yielding in between
 * so an abort stops it promptly.
 */
export function jsBackend(): SearchBackend {
  return {
    name: "js",
    async search(request: SearchRequest): Promise<FileMatches[]> {
      const regex = compilePattern(request.pattern, {
        ignoreCase: request.ignoreCase,
        multiline: request.multiline,
      });
      const search: FileSearch = {
        regex,
        prefilter: request.multiline ? regex : new RegExp(regex.source, `${regex.flags}m`),
        mode: request.mode,
        multiline: request.multiline,
        before: request.mode === "content" ? request.before : 0,
        after: request.mode === "content" ? request.after : 0,
      };
      const filter = new PathFilter(request.globs, request.type);
      const results: FileMatches[] = [];
      const visitFile = (path: string, display: string) => {
        const hit = searchFile(path, search);
        if (hit) results.push({ path: display, count: hit.count, lines: hit.lines });
      };
      if (request.signal.aborted) throw request.signal.reason;
      if (request.rootIsFile) {
        visitFile(request.root, request.displayRoot);
        return results;
      }
      const stack: Folder[] = [
        { path: request.root, display: request.displayRoot, rules: IgnoreRules.above(request.root) },
      ];
      let sliceStart = performance.now();
      for (let folder = stack.pop(); folder; folder = stack.pop()) {
        const entries = listFolder(folder.path);
        const rules = folder.rules.enter(folder.path, new Set(entries.map((entry) => entry.name)));
        for (const dirent of entries) {
          const isDir = dirent.isDirectory();
          if (!isDir && !dirent.isFile()) continue; // symlinks are not followed, as in rg
          const entry: Entry = {
            path: joinPath(folder.path, dirent.name),
            display: joinPath(folder.display, dirent.name),
            name: dirent.name,
            isDir,
          };
          if (!filter.accepts(entry, rules)) continue;
          if (isDir && request.mayEnter?.(entry.path) === false) continue;
          if (isDir) stack.push({ path: entry.path, display: entry.display, rules });
          else visitFile(entry.path, entry.display);
          if (performance.now() - sliceStart > SLICE_MS) {
            await yieldToEventLoop();
            if (request.signal.aborted) throw request.signal.reason;
            sliceStart = performance.now();
          }
        }
      }
      return results;
    },
  };
}

function listFolder(path: string): Dirent[] {
  try {
    return readdirSync(path, { withFileTypes: true });
  } catch {
    return []; // unreadable folders are skipped, as rg --no-messages does
  }
}

function joinPath(folder: string, name: string): string {
  if (folder === "") return name;
  return folder.endsWith("/") ? folder + name : `${folder}/${name}`;
}
