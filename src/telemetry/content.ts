/** The conventions' opt-in for prompts, completions and tool inputs and outputs in spans. */
export const CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/** Whether content goes into spans: the option when given, else the standard variable (`true`). */
export function captureContent(option: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return option ?? env[CAPTURE_CONTENT_ENV]?.trim().toLowerCase() === "true";
}

/** A value as a span attribute: JSON, cut at a bound so one huge tool output cannot swell an export. */
export function contentAttribute(value: unknown, maxChars = 64 * 1024): string {
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  } catch {
    text = String(value);
  }
  return text.length > maxChars ? `${text.slice(0, maxChars)}…[truncated ${text.length - maxChars} chars]` : text;
}
