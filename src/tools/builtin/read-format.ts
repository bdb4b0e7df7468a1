/**
 * Lines in `cat -n` style, as Claude Code shows them: the line number right-aligned in six
 * columns, a TAB, then the line. `firstLine` is the number of `lines[0]`.
 */
export function numberLines(lines: readonly string[], firstLine: number): string {
  return lines.map((line, index) => `${String(firstLine + index).padStart(6, " ")}\t${line}`).join("\n");
}

/** A note for the model, in the `<system-reminder>` wrapper Claude Code uses for such notes. */
export function systemReminder(text: string): string {
  return `<system-reminder>${text}</system-reminder>`;
}
