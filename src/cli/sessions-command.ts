import { resolve } from "node:path";
import { parseCommandArgs } from "./parse-command-args.js";
import { errorMessage, GyreError } from "../errors/index.js";
import {
  deleteSession,
  getSession,
  getSessionTree,
  listSessions,
  type SessionInfo,
  type SessionTree,
} from "../sessions/index.js";
import { transcript } from "./session-transcript.js";

const USAGE =
  "usage: gyre sessions list [--all] [--json] [--limit N] | show ID [--full] [--json] | rm ID   [--cwd DIR]";

/**
 * `gyre sessions list|show|rm`: the sessions of the user's store (see `defaultSqlitePath`);
 * `list` shows this project's (`--cwd`, default the current folder; `--all`: every project's),
 * without subagents' sessions; `show` nests each subagent's transcript under its Agent call
 * (`--json`: the session tree); `rm` removes the subagents' sessions too. Looking creates no database.
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
      else {
        const counts = await subagentCounts(cwd, values.all);
        for (const session of sessions) write(`${listLine(session, values.all, counts.get(session.id))}\n`);
      }
      return 0;
    }
    case "show": {
      const tree = await getSessionTree(needId(id), { cwd });
      if (!tree) throw new GyreError("session_not_found", `No session with id ${id}`);
      if (values.json) {
        write(`${JSON.stringify(tree)}\n`);
        return 0;
      }
      write(`${listLine(tree.session, true)}\n\n`);
      for (const line of treeLines(tree, values.full)) write(`${line}\n`);
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
    return parseCommandArgs({
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

function listLine(session: SessionInfo, withProject: boolean, subagents = 0): string {
  const when = new Date(session.updatedAt).toISOString().replace("T", " ").slice(0, 19);
  const cost = `$${session.costUsd.toFixed(4)}`;
  const where = withProject ? `  ${session.project}` : "";
  const started = subagents > 0 ? `  ${subagents} subagent${subagents > 1 ? "s" : ""}` : "";
  return `${session.id}  ${when}  ${session.messageCount} msgs  ${cost}${started}  ${session.title ?? "(untitled)"}${where}`;
}

/** How many subagents each session ran directly, by session id, in the listing's scope. */
async function subagentCounts(cwd: string, all: boolean): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  for (const child of await listSessions({ cwd, allDirectories: all, subagents: "only" })) {
    if (child.parentId !== null) counts.set(child.parentId, (counts.get(child.parentId) ?? 0) + 1);
  }
  return counts;
}

/** A session's transcript with each subagent's nested under the Agent call that started it. */
function treeLines(tree: SessionTree, full: boolean): string[] {
  const nested = new Map<string, string[]>();
  for (const child of tree.subagents) {
    const header = `↳ subagent ${child.session.id}  ${subagentStatus(child.session)}  ${child.session.title ?? ""}`;
    nested.set(child.session.parentToolUseId ?? child.session.id, [header, ...treeLines(child, full)]);
  }
  return transcript(tree.messages, full, nested);
}

function subagentStatus(session: SessionInfo): string {
  const cost = `$${session.costUsd.toFixed(4)}`;
  if (session.lastResult === null) return `unfinished, ${cost}`;
  return `${session.lastResult.terminalReason}, ${cost}`;
}

function write(text: string): void {
  process.stdout.write(text);
}
