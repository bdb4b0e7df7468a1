import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { errorMessage, GyreError } from "../errors/index.js";
import { deleteSession, getSession, getSessionMessages, listSessions, type SessionInfo } from "../sessions/index.js";
import { transcript } from "./session-transcript.js";

const USAGE =
  "usage: gyre sessions list [--all] [--json] [--limit N] | show ID [--full] [--json] | rm ID   [--cwd DIR]";

/**
 * `gyre sessions list|show|rm`: the sessions of the user's store (see `defaultSqlitePath`);
 * `list` shows this project's (`--cwd`, default the current folder; `--all`: every project's).
 * Looking creates no database.
 */
export async function sessionsCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseSessionsArgs(args);
  const [action, id] = positionals;
  const cwd = resolve(values.cwd ?? process.cwd());
  switch (action) {
    case "list":
    case undefined: {
      const limit = values.limit === undefined ? undefined : Number(values.limit);
      if (limit !== undefined && !(Number.isInteger(limit) && limit > 0))
        throw new GyreError("config_error", `--limit must be a positive whole number, not "${values.limit}"`);
      const sessions = await listSessions({
        cwd,
        ...(limit !== undefined && { limit }),
        allDirectories: values.all,
      });
      if (values.json) write(`${JSON.stringify(sessions)}\n`);
      else if (sessions.length === 0) write(values.all ? "no sessions\n" : `no sessions in ${cwd}\n`);
      else for (const session of sessions) write(`${listLine(session, values.all)}\n`);
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
      write(`${listLine(info, true)}\n\n`);
      for (const line of transcript(messages, values.full)) write(`${line}\n`);
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

function parseSessionsArgs(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        cwd: { type: "string" },
        json: { type: "boolean", default: false },
        full: { type: "boolean", default: false },
        all: { type: "boolean", default: false },
        limit: { type: "string" },
      },
    });
  } catch (error) {
    throw new GyreError("config_error", `${errorMessage(error)}; ${USAGE}`, { cause: error });
  }
}

function needId(id: string | undefined): string {
  if (!id) throw new GyreError("config_error", `a session id is needed; ${USAGE}`);
  return id;
}

function listLine(session: SessionInfo, withProject: boolean): string {
  const when = new Date(session.updatedAt).toISOString().replace("T", " ").slice(0, 19);
  const cost = `$${session.costUsd.toFixed(4)}`;
  const where = withProject ? `  ${session.project}` : "";
  return `${session.id}  ${when}  ${session.messageCount} msgs  ${cost}  ${session.title ?? "(untitled)"}${where}`;
}

function write(text: string): void {
  process.stdout.write(text);
}
