import { type Query, type QueryParams, query as runQuery } from "../run/index.js";
import { wireAgents } from "./wiring.js";

/**
 * Run the agentic loop, with the run's agents: the Agent tool and its subagents, background
 * agents, handoffs, and the `agent` the main thread runs as. Options are checked at once (an
 * unknown option or a bad value throws a `config_error` here); nothing else happens until the
 * first message is pulled. Then the model is resolved (a missing key fails before any
 * request), and messages stream as produced.
 */
export function query(params: QueryParams): Query {
  return runQuery(params, wireAgents);
}
