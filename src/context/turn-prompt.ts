import type { TodoItem } from "./todos-section.js";

/**
 * A document given to the model as retrieved context (the `context` option): text, or text
 * with a title and where it came from.
 */
export type ContextDocument = string | { text: string; title?: string; source?: string };

/** What a `context` function is asked with, before each model call. */
export interface ContextRequest {
  /** The model call the documents are for: 1 for the first. */
  turn: number;
  /** The plan as it is now (the TodoWrite list). */
  todos: readonly TodoItem[];
  cwd: string;
  signal: AbortSignal;
}

/** The `context` option: documents for every model call, or a function that gives each call's. */
export type ContextOption =
  | readonly ContextDocument[]
  | ((request: ContextRequest) => readonly ContextDocument[] | Promise<readonly ContextDocument[]>);

/**
 * What one model call's system prompt is built from: what a `systemPrompt` function gets.
 * It is called before every model call, so what it returns can follow the run as it goes.
 */
export interface SystemPromptContext {
  /**
   * What Gyre would send: the preset (Gyre's prompt, environment, project instructions,
   * `append`) or the agent's own prompt, then the retrieved context and the plan.
   */
  defaultPrompt: string;
  /** The plan as it is now (the TodoWrite list). */
  todos: readonly TodoItem[];
  /** This call's retrieved context (the `context` option). */
  documents: readonly ContextDocument[];
  /** The tools the model may call in this call, by name. */
  tools: readonly string[];
  /** Loop-control tools are on (`loopControlTools: true`): an answer without a tool call gets a reminder. */
  loopControl: boolean;
  /** The model call the prompt is for: 1 for the first. */
  turn: number;
  cwd: string;
  /** The subagent the prompt is for (its type); undefined for the run itself (and the agents it hands off to). */
  agent: string | undefined;
  signal: AbortSignal;
}

/** A `systemPrompt` given as a function: the system prompt of each model call. */
export type SystemPromptFunction = (context: SystemPromptContext) => string | Promise<string>;

/** The retrieved-context section of the system prompt; undefined when there are no documents. */
export function retrievedContextSection(documents: readonly ContextDocument[]): string | undefined {
  const texts = documents.flatMap((document) => {
    if (typeof document === "string") return document.trim() ? [document.trim()] : [];
    if (!document.text.trim()) return [];
    const attributes = [
      document.title !== undefined && ` title="${escapeAttribute(document.title)}"`,
      document.source !== undefined && ` source="${escapeAttribute(document.source)}"`,
    ]
      .filter(Boolean)
      .join("");
    return [`<document${attributes}>\n${document.text.trim()}\n</document>`];
  });
  if (texts.length === 0) return undefined;
  return `<retrieved-context>\n${texts.join("\n\n")}\n</retrieved-context>`;
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
