import { createRequire } from "node:module";
import type * as Readline from "node:readline";

/**
 * Ask the person at the terminal (or whoever writes to stdin) and wait for one line.
 * Resolves undefined when stdin ends without an answer.
 */
export function askPerson(question: string, options: string[] | undefined): Promise<string | undefined> {
  const choices = options && options.length > 0 ? `\n${options.map((o, i) => `  ${i + 1}. ${o}`).join("\n")}` : "";
  process.stderr.write(`\n${question}${choices}\n> `);
  // Waiting for the answer keeps the process alive even if stdin was let go of before (stdin-prompt.ts).
  (process.stdin as { ref?: () => void }).ref?.();
  const lines = (createRequire(import.meta.url)("node:readline") as typeof Readline).createInterface({
    input: process.stdin,
    terminal: false,
  });
  return new Promise((resolve) => {
    let answered = false;
    lines.once("line", (line) => {
      answered = true;
      lines.close();
      const index = Number(line.trim()) - 1;
      resolve(options?.[index] ?? line);
    });
    lines.once("close", () => {
      if (!answered) resolve(undefined);
    });
  });
}
