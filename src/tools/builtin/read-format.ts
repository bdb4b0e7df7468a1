/**
 * Numbered lines as Claude Code 2.1's Read shows them (the format Claude models are trained
 * on): the line number, a TAB, then the line, no padding. `firstLine` is the number of `lines[0]`.
 */
export function numberLines(lines: readonly string[], firstLine: number): string {
  return lines.map((line, index) => `${firstLine + index}\t${line}`).join("\n");
}

/** A note for the model, in the `<system-reminder>` wrapper Claude Code uses for such notes. */
export function systemReminder(text: string): string {
  return `<system-reminder>${text}</system-reminder>`;
}
