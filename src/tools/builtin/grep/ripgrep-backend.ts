import { spawn } from "node:child_process";
import { GyreError } from "../../../errors/index.js";
import { invalidPatternError, unknownTypeError } from "./errors.js";
import { ripgrepArgs, ripgrepRootArg } from "./ripgrep-args.js";
import { parseRipgrepOutput } from "./ripgrep-parse.js";
import type { FileMatches, SearchBackend, SearchRequest } from "./types.js";

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * The ripgrep backend: runs `rg` (argument array, no shell) in the request's cwd. Exit 1
 * means no matches; exit 2 with nothing on stdout is an error, reported with rg's message
 * (a regex that does not compile reads as such). Aborting the request kills rg.
 */
export function ripgrepBackend(rgPath: string): SearchBackend {
  return {
    name: "ripgrep",
    async search(request: SearchRequest): Promise<FileMatches[]> {
      const result = await run(rgPath, ripgrepArgs(request), request.cwd, request.signal);
      if (result.code === 1) return [];
      if (result.code !== 0 && (result.code !== 2 || result.stdout === "")) {
        throw failure(request, result);
      }
      return parseRipgrepOutput(result.stdout, request.mode, ripgrepRootArg(request) === ".");
    },
  };
}

function failure(request: SearchRequest, result: RunResult): GyreError {
  const stderr = result.stderr.trim();
  if (stderr.includes("regex parse error") || stderr.includes("error parsing regex")) {
    return invalidPatternError(request.pattern, stderr.replace(/^regex parse error:\s*/, ""));
  }
  if (stderr.includes("the literal") && stderr.includes("is not allowed in a regex")) {
    return invalidPatternError(request.pattern, `${stderr} (set multiline: true to match across lines)`);
  }
  if (stderr.includes("unrecognized file type") && request.type !== undefined) {
    return unknownTypeError(request.type);
  }
  const detail = stderr || `exit code ${result.code}`;
  return new GyreError("tool_error", `ripgrep failed: ${detail}`, { toolName: "Grep" });
}

function run(command: string, args: string[], cwd: string, signal: AbortSignal): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const child = spawn(command, args, { cwd, signal, stdio: ["ignore", "pipe", "pipe"] });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk));
    child.on("error", (error) => {
      if (signal.aborted) reject(signal.reason);
      else reject(new GyreError("tool_error", `Could not run ripgrep: ${error.message}`, { cause: error }));
    });
    child.on("close", (code) => {
      if (signal.aborted) {
        reject(signal.reason);
        return;
      }
      resolve({
        code,
        stdout: Buffer.concat(stdout).toString("utf8"),
        stderr: Buffer.concat(stderr).toString("utf8"),
      });
    });
  });
}
