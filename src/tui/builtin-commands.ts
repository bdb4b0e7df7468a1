import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { errorMessage } from "../errors/index.js";
import { defaultExportName } from "./export-markdown.js";
import { describeHooks, describeMcp, describePermissions, describePlugins } from "./info-commands.js";
import { INIT_PROMPT } from "./init-prompt.js";
import { PICKER_SIZE } from "./session-picker.js";
import { helpText } from "./slash-commands.js";
import type { QueryOptions } from "../run/index.js";
import type { SDKMessage } from "../protocol/index.js";
import type { AgentSession } from "./agent-session.js";
import type { TuiStore } from "./tui-store.js";
import type { UserCommand } from "../commands/index.js";

/** What a built-in command reaches of the terminal agent: the parts of `TuiController` it uses. */
export interface CommandHost {
  readonly session: AgentSession;
  readonly store: TuiStore;
  readonly options: { readonly cwd: string; readonly options: QueryOptions };
  readonly userCommands: ReadonlyMap<string, UserCommand>;
  /** The last `init` message: the tools (MCP ones included) and MCP servers of the run. */
  readonly lastInit: Extract<SDKMessage, { type: "system"; subtype: "init" }> | undefined;
  notice(text: string, tone?: "info" | "error"): void;
  quit(): Promise<void>;
  restart(): void;
  resume(sessionId: string): Promise<void>;
  prompt(prompt: string, shown: string): void;
}

/** What each built-in slash command does; the person's own commands are prompts (see TuiController.submit). */
export async function runBuiltinCommand(controller: CommandHost, name: string, args: string): Promise<void> {
  const { session, store } = controller;
  switch (name) {
    case "help":
      return controller.notice(helpText(controller.userCommands.values()));
    case "exit":
      return controller.quit();
    case "cost":
      return controller.notice(`Session cost: $${session.costUsd.toFixed(4)}`);
    case "clear":
      await session.clear();
      controller.restart();
      return controller.notice("New session. The previous one is stored (gyre sessions list).");
    case "model":
      if (!args) return controller.notice(`Model: ${store.status.model}`);
      try {
        const model = (await session.setModel(args)) ?? args;
        store.status.model = model;
        return controller.notice(`Model: ${model}`);
      } catch (error) {
        // Checked when chosen: a model that cannot answer never replaces one that can.
        return controller.notice(
          `Cannot use ${args}: ${errorMessage(error)} Still using ${store.status.model}.`,
          "error",
        );
      }
    case "compact":
      if (session.compact(args || undefined))
        return controller.notice("The conversation is compacted before the next model call.");
      return controller.notice("Nothing to compact yet: the session starts with your next prompt.");
    case "resume":
      return resume(controller, args);
    case "permissions":
    case "hooks":
      return controller.notice(await describeSettings(controller, name));
    case "mcp": {
      const live = await session.mcpStatus();
      const init = controller.lastInit;
      const servers = live ?? init?.mcp_servers;
      if (!servers) return controller.notice("MCP servers connect with your first prompt; ask again after it.");
      return controller.notice(describeMcp(servers, init?.tools ?? []));
    }
    case "plugins": {
      const init = controller.lastInit;
      if (!init) return controller.notice("Plugins load with your first prompt; ask again after it.");
      return controller.notice(describePlugins(init));
    }
    case "export":
      return exportConversation(controller, args);
    case "init":
      return controller.prompt(INIT_PROMPT, "/init");
  }
}

async function resume(controller: CommandHost, id: string): Promise<void> {
  if (controller.session.busy) return controller.notice("A turn is running: Esc first, then /resume.", "error");
  if (id) return controller.resume(id);
  const { listSessions } = await import("../sessions/index.js");
  const current = controller.session.sessionId;
  const sessions = (await listSessions({ cwd: controller.options.cwd, limit: PICKER_SIZE + 1 }))
    .filter((session) => session.id !== current)
    .slice(0, PICKER_SIZE);
  if (sessions.length === 0) return controller.notice("No other session of this folder to resume.");
  controller.store.picker = sessions;
  controller.store.changed();
}

async function describeSettings(controller: CommandHost, what: "permissions" | "hooks"): Promise<string> {
  const { loadSettings } = await import("../settings/index.js");
  const { cwd } = controller.options;
  const { options } = controller.session;
  const settings = await loadSettings({
    cwd,
    sources: options.settingSources ?? [],
    requireTrust: options.requireProjectTrust ?? false,
  });
  if (what === "hooks") return describeHooks(settings);
  return describePermissions(settings, {
    mode: controller.session.mode,
    allowedTools: options.allowedTools,
    disallowedTools: options.disallowedTools,
  });
}

async function exportConversation(controller: CommandHost, file: string): Promise<void> {
  const sessionId = controller.session.sessionId;
  if (!sessionId) return controller.notice("Nothing to export yet: the session starts with your first prompt.");
  const { getSessionMessages } = await import("../sessions/index.js");
  const { conversationMarkdown } = await import("./export-markdown.js");
  const messages = await getSessionMessages(sessionId, { cwd: controller.options.cwd });
  const target = resolve(controller.options.cwd, file || defaultExportName(sessionId, new Date()));
  await writeFile(target, conversationMarkdown(messages, `Gyre session ${sessionId}`));
  controller.notice(`Exported the conversation to ${target}`);
}
