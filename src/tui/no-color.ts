/** Whether the person asked for no colours (https://no-color.org: NO_COLOR set and not empty). */
export function noColorRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return typeof env.NO_COLOR === "string" && env.NO_COLOR !== "";
}

const SGR = /\x1b\[([\d;:]*)m/g;

/**
 * The text without colours: SGR sequences lose their foreground and background colour
 * parameters (basic, bright, 256 and true colour) and keep the rest (bold, dim, italic,
 * underline, inverse, resets), so the prompt's cursor and emphasis still show.
 */
export function stripColors(text: string): string {
  return text.replace(SGR, (sequence, params: string) => {
    if (params === "") return sequence;
    const kept: string[] = [];
    const parts = params.split(";");
    for (let index = 0; index < parts.length; index++) {
      const code = Number((parts[index] ?? "").split(":")[0]);
      if (code === 38 || code === 48 || code === 58) {
        // Extended colour: 38;5;N or 38;2;R;G;B (the colon forms carry their values in one part).
        const mode = parts[index + 1];
        if (!(parts[index] ?? "").includes(":")) index += mode === "5" ? 2 : mode === "2" ? 4 : 0;
        continue;
      }
      if (
        (code >= 30 && code <= 39) ||
        (code >= 40 && code <= 49) ||
        (code >= 90 && code <= 97) ||
        (code >= 100 && code <= 107) ||
        code === 59
      )
        continue;
      kept.push(parts[index] ?? "");
    }
    return kept.length === 0 ? "" : `\x1b[${kept.join(";")}m`;
  });
}

/**
 * The terminal's output stream with every write's colours stripped (for NO_COLOR): Ink styles
 * text through chalk, which does not read NO_COLOR and, set to no colour at all, would drop
 * bold and inverse too. Everything else (size, resize events, isTTY) is the stream's own.
 */
export function withoutColors(stream: NodeJS.WriteStream): NodeJS.WriteStream {
  const write = (chunk: unknown, ...rest: unknown[]): boolean =>
    (stream.write as (...args: unknown[]) => boolean)(typeof chunk === "string" ? stripColors(chunk) : chunk, ...rest);
  return new Proxy(stream, {
    get(target, property) {
      if (property === "write") return write;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
