import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { GyreError } from "../errors/index.js";
import type { SDKMessage } from "../protocol/index.js";
import { deleteSession, getSession, getSessionMessages, listSessions, type SessionInfo } from "../sessions/index.js";

const USAGE = "usage: gyre sessions list [--json] [--limit N] | show ID [--json] | rm ID [--cwd DIR]";

/** `gyre sessions list|show|rm`: the sessions of the project's store (`<cwd>/.gyre/sessions.db`). */
export async function sessionsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      cwd: { type: "string" },
      json: { type: "boolean", default: false },
      limit: { type: "string" },
    },
  });
  const [action, id] = positionals;
  const cwd = resolve(values.cwd ?? process.cwd());
  switch (action) {
    case "list":
    case undefined: {
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      const sessions = await listSessions({
        cwd,
        ...(limit !== undefined && { limit }),
        allDirectories: true,
      });
      if (values.json) write(`${JSON.stringify(sessions)}\n`);
      else for (const session of sessions) write(`${listLine(session)}\n`);
      return 0;
    }
    case "show": {
      const info = await getSession(needId(id), { cwd });
      if (!info) throw new GyreError("session_not_found", `No session with id ${id}`);
      const messages = await getSessionMessages(info.id, { cwd });
      if (values.json) {
        write(`${JSON.stringify({ session: info, messages })}\n`);
        return 0;
      }
      write(`${listLine(info)}\n\n`);
      for (const message of messages) {
        const line = transcriptLine(message);
        if (line) write(`${line}\n`);
      }
      return 0;
    }
    case "rm": {
      const target = needId(id);
      if (!(await getSession(target, { cwd })))
        throw new GyreError("session_not_found", `No session with id ${target}`);
      await deleteSession(target, { cwd });
      write(`deleted ${target}\n`);
      return 0;
    }
    default:
      throw new GyreError("config_error", `unknown sessions command "${action}"; ${USAGE}`);
  }
}

function needId(id: string | undefined): string {
  if (!id) throw new GyreError("config_error", `a session id is needed; ${USAGE}`);
  return id;
}

function listLine(session: SessionInfo): string {
  const when = new Date(session.updatedAt).toISOString().replace("T", " ").slice(0, 19);
  const cost = `$${session.costUsd.toFixed(4)}`;
  return `${session.id}  ${when}  ${session.messageCount} msgs  ${cost}  ${session.title ?? "(untitled)"}`;
}

function transcriptLine(message: SDKMessage): string | undefined {
  switch (message.type) {
    case "user": {
      const content = message.message.content;
      if (typeof content === "string") return `> ${content}`;
      const text = content.map((block) => (block.type === "text" ? block.text : "")).join("");
      const results = content.filter((block) => block.type === "tool_result").length;
      return text ? `> ${text}` : results > 0 ? `  (${results} tool result${results > 1 ? "s" : ""})` : undefined;
    }
    case "assistant":
      return message.message.content
        .map((block) =>
          block.type === "text"
            ? block.text
            : block.type === "tool_use"
              ? `  [${block.name}] ${JSON.stringify(block.input)}`
              : "",
        )
        .filter(Boolean)
        .join("\n");
    case "result":
      return `-- ${message.subtype} (${message.num_turns} turns, $${message.total_cost_usd.toFixed(4)})`;
    default:
      return undefined;
  }
}

function write(text: string): void {
  process.stdout.write(text);
}
