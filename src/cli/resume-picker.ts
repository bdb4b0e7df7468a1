import path from "node:path";
import { createRequire } from "node:module";
import type * as Readline from "node:readline";
import { GyreError } from "../errors/index.js";
import type { SessionInfo } from "../sessions/index.js";

/** How many recent sessions the picker offers. */
export const RESUME_CHOICES = 10;

const TITLE_WIDTH = 72;

/** Where the picker asks: the person's keyboard, and a stream that is not stdout (which holds the run's result). */
export interface PickerTerminal {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
}

/**
 * `gyre -p -r` with no session id, on a terminal: the folder's recent sessions, numbered,
 * newest first; the person types a number (Enter alone takes the newest). Resolves the
 * chosen session's id. A plain numbered list read with readline, so print mode loads no
 * terminal UI. Fails with `session_not_found` when the folder has no session, and with
 * `config_error` when input ends without a choice.
 */
export async function pickSessionToResume(
  cwd: string,
  terminal: PickerTerminal = { input: process.stdin, output: process.stderr },
): Promise<string> {
  const { listSessions } = await import("../sessions/index.js");
  const folder = path.resolve(cwd);
  const sessions = await listSessions({ cwd: folder, limit: RESUME_CHOICES });
  if (sessions.length === 0) {
    throw new GyreError(
      "session_not_found",
      `no session in ${folder} to resume (gyre sessions list --all shows every folder's)`,
    );
  }
  terminal.output.write(`Recent sessions in ${folder}:\n`);
  const chosen = await chooseSession(sessions, terminal);
  if (!chosen) throw new GyreError("config_error", "no session chosen to resume");
  terminal.output.write(`Resuming ${chosen.id}\n`);
  return chosen.id;
}

/** Lists `sessions` and reads lines until one names a session (a number, or nothing for the first); undefined when input ends. */
export function chooseSession(
  sessions: readonly SessionInfo[],
  terminal: PickerTerminal,
): Promise<SessionInfo | undefined> {
  const { input, output } = terminal;
  sessions.forEach((session, index) => output.write(`${choiceLine(session, index + 1)}\n`));
  const question = `Resume which? (1-${sessions.length}, Enter: 1, Ctrl+D: none) `;
  output.write(question);
  // Waiting for the answer keeps the process alive even if stdin was let go of before.
  (input as { ref?: () => void }).ref?.();
  const lines = (createRequire(import.meta.url)("node:readline") as typeof Readline).createInterface({
    input,
    terminal: false,
  });
  return new Promise((resolve) => {
    let chosen: SessionInfo | undefined;
    lines.on("line", (line) => {
      const answer = line.trim();
      const number = answer === "" ? 1 : Number(answer);
      chosen = Number.isInteger(number) ? sessions[number - 1] : undefined;
      if (chosen) return lines.close();
      output.write(`Type a number from 1 to ${sessions.length}.\n${question}`);
    });
    lines.once("close", () => {
      if (!chosen) output.write("\n");
      resolve(chosen);
    });
  });
}

/** ` 1. 2026-11-27 21:40   4 msgs  fix the failing test` */
export function choiceLine(session: SessionInfo, number: number): string {
  const when = new Date(session.updatedAt).toISOString().replace("T", " ").slice(0, 16);
  return `${String(number).padStart(3)}. ${when} ${String(session.messageCount).padStart(4)} msgs  ${shownTitle(session.title)}`;
}

/** A title on one line, cut to fit, without control characters (a prompt could hold terminal escapes). */
function shownTitle(title: string | null): string {
  if (title === null) return "(untitled)";
  const line = title
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
  return line.length > TITLE_WIDTH ? `${line.slice(0, TITLE_WIDTH - 1)}…` : line;
}
