import type { ElicitationRequest, OnElicitation } from "../mcp/index.js";

/** Asks one question and waits for the answer line; undefined when input ended. */
export type AskLine = (question: string, options?: string[]) => Promise<string | undefined>;

type Answer = string | number | boolean | string[];
type Field = {
  type?: string;
  title?: string;
  description?: string;
  enum?: unknown[];
  oneOf?: Array<{ const?: unknown; title?: string }>;
  items?: { enum?: unknown[]; anyOf?: Array<{ const?: unknown }> };
  default?: unknown;
};

const ACCEPT = "answer";
const DECLINE = "decline";
const CANCEL = "cancel";

/**
 * `onElicitation` for a person at the terminal: says which server asks what, then asks for
 * each field of the requested form (its title, description, choices and default; an empty
 * line takes the default or leaves an optional field out). A URL-mode request shows the URL.
 * Input that ends is a cancel. The run's checks of the answer against the schema still apply.
 */
export function elicitationAsker(ask: AskLine): OnElicitation {
  return async (request) => {
    const intro = `MCP server "${request.serverName}" asks: ${request.message}`;
    if (request.mode === "url") {
      const choice = await ask(`${intro}\nOpen ${request.url ?? "(no URL)"} to answer.`, ["done", DECLINE, CANCEL]);
      return { action: choice === "done" ? "accept" : choice === DECLINE ? "decline" : "cancel" };
    }
    const choice = await ask(intro, [ACCEPT, DECLINE, CANCEL]);
    if (choice !== ACCEPT) return { action: choice === DECLINE ? "decline" : "cancel" };
    const content = await askFields(request, ask);
    return content === undefined ? { action: "cancel" } : { action: "accept", content };
  };
}

async function askFields(request: ElicitationRequest, ask: AskLine): Promise<Record<string, Answer> | undefined> {
  const schema = request.requestedSchema ?? {};
  const properties = (schema.properties ?? {}) as Record<string, Field>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const content: Record<string, Answer> = {};
  for (const [key, field] of Object.entries(properties)) {
    const choices = choicesOf(field);
    const hint = [
      field.description,
      field.type === "boolean" ? "yes or no" : undefined,
      field.type === "array" ? "comma-separated" : undefined,
      field.default !== undefined ? `default: ${JSON.stringify(field.default)}` : undefined,
      required.has(key) ? "required" : undefined,
    ].filter(Boolean);
    const line = await ask(`${field.title ?? key}${hint.length > 0 ? ` (${hint.join("; ")})` : ""}`, choices);
    if (line === undefined) return undefined;
    const value = line.trim() === "" ? field.default : parse(line.trim(), field);
    if (value !== undefined) content[key] = value as Answer;
  }
  return content;
}

function choicesOf(field: Field): string[] | undefined {
  const values = field.enum ?? field.oneOf?.map((option) => option.const);
  const strings = values?.filter((value): value is string => typeof value === "string");
  return strings && strings.length > 0 ? strings : undefined;
}

function parse(line: string, field: Field): Answer {
  switch (field.type) {
    case "boolean":
      return /^(y|yes|true|1)$/i.test(line);
    case "number":
    case "integer":
      return Number(line);
    case "array":
      return line
        .split(",")
        .map((part) => part.trim())
        .filter((part) => part.length > 0);
    default:
      return line;
  }
}
