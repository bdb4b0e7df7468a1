/** The conventions' opt-in for prompts, completions and tool inputs and outputs in spans. */
export const CAPTURE_CONTENT_ENV = "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT";

/** Whether content goes into spans: the option when given, else the standard variable (`true`). */
export function captureContent(option: boolean | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return option ?? env[CAPTURE_CONTENT_ENV]?.trim().toLowerCase() === "true";
}

/** Environment variables whose values are secrets: provider keys, tokens, passwords. */
const SECRET_NAME = /(?:API_KEY|APIKEY|_KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)$/i;
/** Shorter values are not taken for secrets (a `1` or `true` would be cut out of every text). */
const MIN_SECRET_LENGTH = 8;

/**
 * The values of the secret-named variables of `envs` (provider keys among them), longest first,
 * for content attributes to leave out even when content is captured.
 */
export function secretValues(...envs: (Readonly<Record<string, string | undefined>> | undefined)[]): string[] {
  const values = new Set<string>();
  for (const env of envs)
    for (const [name, value] of Object.entries(env ?? {}))
      if (value !== undefined && value.length >= MIN_SECRET_LENGTH && SECRET_NAME.test(name)) values.add(value);
  return [...values].sort((a, b) => b.length - a.length);
}

/** How a value becomes a content attribute. */
export interface ContentOptions {
  /** Longer text is cut (default 64 KiB) so one huge tool output cannot swell an export. */
  maxChars?: number;
  /** Values replaced by `[REDACTED]` wherever they appear (see {@link secretValues}). */
  secrets?: readonly string[];
}

/** A value as a span attribute: JSON, secrets taken out, cut at a bound. */
export function contentAttribute(value: unknown, options: ContentOptions = {}): string {
  const maxChars = options.maxChars ?? 64 * 1024;
  let text: string;
  try {
    text = typeof value === "string" ? value : (JSON.stringify(value) ?? "null");
  } catch {
    text = String(value);
  }
  for (const secret of options.secrets ?? []) if (text.includes(secret)) text = text.replaceAll(secret, "[REDACTED]");
  return text.length > maxChars ? `${text.slice(0, maxChars)}…[truncated ${text.length - maxChars} chars]` : text;
}
