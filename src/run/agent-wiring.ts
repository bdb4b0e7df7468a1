import { GyreError } from "../errors/index.js";
import type { RunBackground, RunContext, RunHandoffs, RunState } from "../loop/index.js";
import type { McpServers } from "../mcp/index.js";
import type { Model } from "../model/index.js";
import type { PermissionPolicy } from "../permissions/index.js";
import type { IgnoredProjectSettings } from "../settings/index.js";
import type { SDKMessage } from "../protocol/index.js";
import type { SessionStore } from "../sessions/index.js";
import type { AnyTool } from "../tools/index.js";
import type { Plugin } from "../plugins/index.js";
import type { Skill } from "../skills/index.js";
import type { QueryOptions } from "./options.js";

// Agents (src/agents/) stand above the run: they drive runs, and a run reaches them only
// through what they wire into it here — the Agent and AgentOutput tools, the handoffs, the
// background agents. `query()` from src/agents/ passes its wiring to the run's set-up.

/** A run as its set-up built it, for what its tools read when they are called (never before). */
export class BuiltRun {
  #built: { context: RunContext; state: RunState; model: Model; permissions: PermissionPolicy } | undefined;

  /** Called once, when the run's context and state exist. */
  complete(built: { context: RunContext; state: RunState; model: Model; permissions: PermissionPolicy }): void {
    this.#built = built;
  }

  /** The run's own context (not the one of an agent it runs as). */
  get context(): RunContext {
    return this.#get().context;
  }

  get state(): RunState {
    return this.#get().state;
  }

  /** The run's own model and permissions: what `model: "inherit"` means and what an agent's mode narrows. */
  get own(): { model: Model; permissions: PermissionPolicy } {
    const { model, permissions } = this.#get();
    return { model, permissions };
  }

  #get() {
    if (!this.#built) throw new GyreError("internal_error", "The run was read before its set-up finished.");
    return this.#built;
  }
}

/** The run's store, for sessions a run keeps besides its own (its subagents'). */
export interface ChildSessionStore {
  /** The store, opened (a deferred store is open once the run's first model answer is stored). */
  open(): Promise<SessionStore>;
  /** Messages another session of this run stored already: the run's own session does not store them again. */
  readonly storedElsewhere: WeakSet<SDKMessage>;
  readonly place: { cwd: string; project: string };
}

/** What the run's set-up gives the agents' wiring. */
export interface AgentWiringInput {
  options: QueryOptions;
  cwd: string;
  /** The agent the main thread runs as: a resumed session's last handoff, else the `agent` option. */
  startAs: { name: string; from: "session" | "option" } | undefined;
  /** Where subagents keep their sessions; none when the run keeps no session. */
  childSessions: ChildSessionStore | undefined;
  newUuid: () => string;
  /** The run's MCP servers, once connected (none when it has no servers). */
  mcpServers: () => Promise<McpServers | undefined>;
  /** Resolves a model as the run resolves its own (keys, providers, pricing): a subagent's. */
  resolveModel: (spec: string) => Promise<Model>;
  /** The same, for a model the run itself goes on with (a handoff's): checked against its budget too. */
  resolveRunModel: (spec: string) => Promise<Model>;
  /** Tools the run needs to end as asked (loop control, StructuredOutput): every agent keeps them. */
  kept: ReadonlySet<string>;
  run: BuiltRun;
  /** Every skill the run found (not only those it offers): what agents' `skills` name. */
  skills: () => Promise<readonly Skill[]>;
  /** The run's plugins: their agents are the run's too, as `plugin:agent`. */
  plugins: () => Promise<readonly Plugin[]>;
}

/** What the agents add to a run. */
export interface AgentWiring {
  /** The Agent and AgentOutput tools, when the run has them. */
  tools: AnyTool[];
  handoffs?: RunHandoffs;
  background?: RunBackground;
  /** The project's agent files a run in a folder the person has not trusted leaves out (`ignored_settings`). */
  ignored?: IgnoredProjectSettings;
  /** The agents the Agent tool can start (`system/init`'s `agents`), when the run has it. */
  agentNames?: string[];
}

/** Wires agents into a run; started at the beginning of its set-up, awaited before its tools are registered. */
export type WireAgents = (input: AgentWiringInput) => Promise<AgentWiring>;
