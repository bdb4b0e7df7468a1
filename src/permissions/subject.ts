import path from "node:path";
import type { BashCall } from "./bash-rules.js";
import { expandHome, resolveRealPath } from "./resolve-path.js";
import { analyzeShell } from "./shell/analyze.js";
import { inputPath, inputString, SEARCH_TOOLS } from "./tool-kinds.js";

/** What a tool call acts on, as far as rules are concerned. */
export type Subject =
  | { kind: "bash"; call: BashCall }
  /** `files`: the path as written and its real path; `directory`: a search tool's root. */
  | { kind: "file"; files: string[]; real: string; directory: boolean }
  | { kind: "url"; hostname?: string }
  | { kind: "other" };

/** Classify a call by tool name and input: Bash commands, file paths, fetched URLs. */
export function classifyRequest(
  request: { toolName: string; input: unknown; cwd: string },
  workspace: string,
  home: string,
): Subject {
  const cwd = path.resolve(workspace, request.cwd);
  if (request.toolName === "Bash") {
    const raw = inputString(request.input, "command") ?? "";
    return { kind: "bash", call: { raw, analysis: analyzeShell(raw, home), cwd, home } };
  }
  if (request.toolName === "WebFetch") {
    return { kind: "url", hostname: hostnameOf(inputString(request.input, "url")) };
  }
  const file = inputPath(request.toolName, request.input);
  if (file === undefined) return { kind: "other" };
  let lexical = path.resolve(cwd, expandHome(file, home));
  // An absolute or `../` pattern searches from its own base, not from `path`.
  if (request.toolName === "Glob") lexical = globBase(lexical, inputString(request.input, "pattern") ?? "", home);
  const real = resolveRealPath(lexical);
  const files = lexical === real ? [lexical] : [lexical, real];
  return { kind: "file", files, real, directory: SEARCH_TOOLS.has(request.toolName) };
}

/** `domain:example.com` matches that host exactly; `domain:*.example.com` matches its subdomains. */
export function matchesDomain(content: string, hostname: string | undefined): boolean {
  if (!content.startsWith("domain:") || hostname === undefined) return false;
  const domain = content.slice("domain:".length).trim().toLowerCase();
  if (domain.startsWith("*.")) return hostname.endsWith(domain.slice(1));
  return hostname === domain;
}

function hostnameOf(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

/** Characters that make a pattern segment a glob in Glob's matcher (picomatch with braces and extglobs). */
const GLOB_SEGMENT = /[*?[\]{}()!+@\\]/;

/**
 * The folder a Glob pattern searches: the pattern's literal leading segments resolved from
 * `root` (`/elsewhere/*` → `/elsewhere`, `../x/**` → the parent's `x`). A `..` after the
 * first glob segment can climb anywhere, so the base is then the filesystem root.
 */
export function globBase(root: string, pattern: string, home: string): string {
  const segments = expandHome(pattern, home).split("/");
  const literal: string[] = [];
  let i = 0;
  for (; i < segments.length - 1 && !GLOB_SEGMENT.test(segments[i]!); i++) literal.push(segments[i]!);
  if (segments.slice(i).includes("..")) return path.parse(root).root;
  return path.resolve(root, literal.join("/") || ".");
}
