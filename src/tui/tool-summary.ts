import { relative } from "node:path";

/** What a tool call is about, in a few words: `src/app.ts`, `npm test`, `"TODO" in src`. */
export function describeInput(name: string, input: Record<string, unknown>, cwd: string): string {
  const text = (key: string) => (typeof input[key] === "string" ? (input[key] as string) : undefined);
  const path = (key: string) => {
    const value = text(key);
    if (value === undefined) return undefined;
    const shown = relative(cwd, value);
    return shown && !shown.startsWith("..") ? shown : value;
  };
  let about: string | undefined;
  switch (name) {
    case "Read":
    case "Write":
    case "Edit":
    case "MultiEdit":
    case "NotebookEdit":
      about = path("file_path") ?? path("notebook_path");
      break;
    case "Bash":
      about = text("command");
      break;
    case "Grep":
    case "Glob":
      about = text("pattern") && `${text("pattern")}${text("path") ? ` in ${path("path")}` : ""}`;
      break;
    case "WebFetch":
      about = text("url");
      break;
    case "AskUserQuestion": {
      const questions = Array.isArray(input.questions) ? (input.questions as Array<{ question?: unknown }>) : [];
      const first = typeof questions[0]?.question === "string" ? questions[0].question : undefined;
      about = first && (questions.length > 1 ? `${first} (+${questions.length - 1} more)` : first);
      break;
    }
    case "WebSearch":
      about = text("query");
      break;
    case "Task":
    case "Agent":
      about = text("description");
      break;
    default:
      about = firstString(input);
  }
  return oneLine(about ?? "", 80);
}

/** How a finished call went, in a few words: `120 lines`, `→ exit 1`, `3 files`. */
export function describeOutcome(name: string, output: string, isError: boolean): string {
  if (name === "Bash") {
    const exit = /Exit code (\d+)/.exec(output);
    if (exit) return `→ exit ${exit[1]}`;
    if (isError && /interrupted/i.test(output)) return "interrupted";
    return isError ? `→ ${oneLine(output, 60)}` : "→ exit 0";
  }
  if (isError) return oneLine(output.replace(/^Error:\s*/, ""), 60);
  const lines = output === "" ? 0 : output.replace(/\n$/, "").split("\n").length;
  if (name === "Read") return `(${lines} ${lines === 1 ? "line" : "lines"})`;
  if (name === "Glob") return `(${lines} ${lines === 1 ? "file" : "files"})`;
  // Write's diff shows its content as added: say whether it made the file or replaced one.
  if (name === "Write") return /created successfully/.test(output) ? "(new file)" : "(replaced the file)";
  if (name === "Grep") return `(${lines} ${lines === 1 ? "line" : "lines"})`;
  if (name === "ToolSearch") {
    // Each tool a search loaded is one `<function>` line of its result.
    const loaded = output.match(/^<function>/gm)?.length ?? 0;
    return loaded === 0 ? "(no match)" : `(loaded ${loaded} ${loaded === 1 ? "tool" : "tools"})`;
  }
  return "";
}

function firstString(input: Record<string, unknown>): string | undefined {
  return Object.values(input).find((value): value is string => typeof value === "string");
}

/** A text as one line of at most `max` characters. */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
