import type { SessionRecord } from "./session-record.js";
import type { ListSessionsFilter } from "./store.js";

/**
 * The `WHERE` clause of a session listing, for either SQL store: `placeholder(n)` writes the
 * n-th parameter (1-based: `?` for SQLite, `$n` for PostgreSQL). Subagents' sessions are
 * left out unless the filter asks for them.
 */
export function sessionFilterSql(
  filter: ListSessionsFilter,
  placeholder: (n: number) => string,
): { where: string; params: string[] } {
  const conditions: string[] = [];
  const params: string[] = [];
  const equals = (column: string, value: string) => {
    params.push(value);
    conditions.push(`${column} = ${placeholder(params.length)}`);
  };
  if (filter.project !== undefined) equals("project", filter.project);
  else if (filter.cwd !== undefined) equals("cwd", filter.cwd);
  if (filter.parentId !== undefined) equals("parent_id", filter.parentId);
  const subagents = filter.subagents ?? "exclude";
  if (subagents === "exclude") conditions.push("parent_tool_use_id IS NULL");
  if (subagents === "only") conditions.push("parent_tool_use_id IS NOT NULL");
  return { where: conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "", params };
}

/** The same filter, for a store that keeps records in memory. */
export function matchesFilter(record: SessionRecord, filter: ListSessionsFilter): boolean {
  if (
    filter.project !== undefined
      ? record.project !== filter.project
      : filter.cwd !== undefined && record.cwd !== filter.cwd
  )
    return false;
  if (filter.parentId !== undefined && record.parentId !== filter.parentId) return false;
  const subagents = filter.subagents ?? "exclude";
  if (subagents === "exclude") return record.parentToolUseId === null;
  if (subagents === "only") return record.parentToolUseId !== null;
  return true;
}

/**
 * `id` and the sessions of the subagents it ran, at any depth (what deleting it removes),
 * from a lookup of a session's subagent sessions. Each id once, even if links loop.
 */
export function withSubagentSessions(id: string, subagentsOf: (id: string) => readonly string[]): string[] {
  const ids = [id];
  const seen = new Set(ids);
  for (let index = 0; index < ids.length; index++) {
    for (const child of subagentsOf(ids[index]!)) {
      if (seen.has(child)) continue;
      seen.add(child);
      ids.push(child);
    }
  }
  return ids;
}
