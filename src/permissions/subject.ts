import path from "node:path";
import type { BashCall } from "./bash-rules.js";
import { expandHome, resolveRealPath } from "./resolve-path.js";
import { splitCommand } from "./shell/split-command.js";
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
    return { kind: "bash", call: { raw, split: splitCommand(raw), cwd, home } };
  }
  if (request.toolName === "WebFetch") {
    return { kind: "url", hostname: hostnameOf(inputString(request.input, "url")) };
  }
  const file = inputPath(request.toolName, request.input);
  if (file === undefined) return { kind: "other" };
  const lexical = path.resolve(cwd, expandHome(file, home));
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
