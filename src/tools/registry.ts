import { z } from "zod";
import type { FreeformTool, ServerSearchOptions } from "../model/index.js";
import type { AnyTool } from "./tool.js";

/** A tool as the model sees it: name, description and JSON Schema of its input (and an MCP tool's origin, a freeform tool's format). */
export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: Record<string, unknown>;
  mcp?: { server: string; tool: string };
  freeform?: FreeformTool;
  serverSearch?: ServerSearchOptions;
}

export interface ToolFilter {
  /** When given, only these tools are offered. */
  only?: readonly string[];
  /** Never offered, and calls to them are refused as unknown. */
  disallowed?: readonly string[];
}

/**
 * Holds tools by name in registration order (stable, so the tool list sent to the model
 * — and with it the provider's prompt cache — does not change between turns).
 */
export class ToolRegistry {
  readonly #tools = new Map<string, AnyTool>();
  readonly #schemas = new Map<string, Record<string, unknown>>();
  readonly #disallowed: Set<string>;
  readonly #only: Set<string> | undefined;
  #revision = 0;

  constructor(tools: Iterable<AnyTool> = [], filter: ToolFilter = {}) {
    this.#disallowed = new Set(filter.disallowed ?? []);
    this.#only = filter.only ? new Set(filter.only) : undefined;
    for (const tool of tools) this.register(tool);
  }

  /** Add a tool; a later tool with the same name replaces the earlier one in place. */
  register(tool: AnyTool): this {
    this.#tools.set(tool.name, tool);
    this.#schemas.delete(tool.name);
    this.#revision++;
    return this;
  }

  /** Remove a tool (an MCP server's tool that went away); the others keep their order. */
  unregister(name: string): this {
    if (this.#tools.delete(name)) this.#revision++;
    this.#schemas.delete(name);
    return this;
  }

  /** Changes with every `register`/`unregister`: the tool list sent to the model is rebuilt only then. */
  get revision(): number {
    return this.#revision;
  }

  /** Look a tool up by name; disabled tools are found, disallowed ones are not. */
  get(name: string): AnyTool | undefined {
    const tool = this.#tools.get(name) ?? this.#byAlias(name);
    if (!tool || !this.#permitted(tool.name)) return undefined;
    return tool;
  }

  #byAlias(name: string): AnyTool | undefined {
    for (const tool of this.#tools.values()) if (tool.aliases?.includes(name)) return tool;
    return undefined;
  }

  /** Every tool that may be called, in registration order. */
  list(): AnyTool[] {
    return [...this.#tools.values()].filter((tool) => this.#permitted(tool.name));
  }

  /** Names of the tools offered to the model. */
  names(): string[] {
    return this.offered().map((tool) => tool.name);
  }

  /** Definitions for the model: enabled, permitted tools only. */
  definitions(): ToolDefinition[] {
    return this.offered().map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: this.#jsonSchema(tool),
      ...(tool.mcp && { mcp: tool.mcp }),
      ...(tool.freeform && { freeform: tool.freeform }),
      ...(tool.serverSearch && { serverSearch: tool.serverSearch }),
    }));
  }

  offered(): AnyTool[] {
    return this.list().filter((tool) => tool.enabled !== false);
  }

  #permitted(name: string): boolean {
    if (this.#disallowed.has(name)) return false;
    return this.#only === undefined || this.#only.has(name);
  }

  #jsonSchema(tool: AnyTool): Record<string, unknown> {
    let schema = this.#schemas.get(tool.name);
    if (!schema) {
      schema = tool.jsonSchema ?? toJsonSchema(tool.inputSchema);
      this.#schemas.set(tool.name, schema);
    }
    return schema;
  }
}

/** JSON Schema of a zod schema, as sent to the model (input side, draft 2020-12 minus `$schema`). */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const json = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}
