import type { AnyTool } from "../tool.js";
import { askUserQuestionTool } from "./ask-user-question.js";
import { withBundledInputSchema } from "./bundled-input-schemas.js";
import { exitPlanModeTool } from "./exit-plan-mode.js";
import { type BashToolsOptions, bashTools } from "./bash/index.js";
import { editTool } from "./edit.js";
import { globTool } from "./glob-tool.js";
import { notebookEditTool } from "./notebook/index.js";
import { type GrepToolOptions, grepTool } from "./grep/index.js";
import { readTool } from "./read.js";
import { todoWriteTool } from "./todo-write.js";
import { type WebFetchToolOptions, webFetchTool } from "./web-fetch/index.js";
import { type WebSearchToolOptions, webSearchTool } from "./web-search/index.js";
import { writeTool } from "./write.js";

export interface DefaultToolsOptions {
  /** The working directory the tools resolve relative paths against (tools get it per call too). */
  cwd: string;
  /** Options of the Bash tools (pseudo-terminal, shell, environment). */
  bash?: BashToolsOptions;
  /** Options of Grep (e.g. force the JavaScript backend). */
  grep?: GrepToolOptions;
  /** Options of WebFetch (its limits, the hosts of the local network it may reach, the small model's answer). */
  webFetch?: WebFetchToolOptions;
  /** Options of WebSearch (its search backend). */
  webSearch?: WebSearchToolOptions;
}

/**
 * The built-in tool set that `query()` uses unless told otherwise, in Claude Code's order
 * and with its names and input schemas.
 */
export function defaultTools(options: DefaultToolsOptions): AnyTool[] {
  const sandboxed = Boolean(options.bash?.sandbox);
  return [
    ...bashTools(options.bash),
    globTool(),
    grepTool(options.grep),
    readTool(),
    editTool(),
    writeTool(),
    notebookEditTool(),
    webFetchTool(options.webFetch),
    todoWriteTool(),
    webSearchTool(options.webSearch),
    askUserQuestionTool(),
    exitPlanModeTool(),
  ].map((tool) => withBundledInputSchema(tool, sandboxed));
}

/**
 * Loads what the named built-in tools load at their first call (Glob's and Grep's search code),
 * so that call does not wait for it. Called while the model answers, when the process is idle;
 * a failed load is left for the call to meet.
 */
export async function preloadBuiltinTools(names: ReadonlySet<string>): Promise<void> {
  await Promise.all([
    names.has("Glob") && import("./glob-run.js").catch(() => {}),
    names.has("Grep") && import("./grep/grep-run.js").catch(() => {}),
  ]);
}

export { passedVariables } from "./bash/index.js";
export type { BashToolsOptions, CommandSandbox, SandboxViolation, SandboxWatch } from "./bash/index.js";
export type { GrepToolOptions } from "./grep/index.js";
export { findRipgrep } from "./grep/index.js";
export {
  AskUserQuestionInput,
  AskUserQuestionItem,
  AskUserQuestionOption,
  type AskUserQuestionOutput,
  askUserQuestionTool,
  describeAnswers,
} from "./ask-user-question.js";
export { ExitPlanModeInput, type ExitPlanModeOutput, exitPlanModeTool, PLAN_APPROVED } from "./exit-plan-mode.js";
export { LOOP_CONTROL_TOOLS, type LoopControlToolName, loopControlTools } from "./loop-control.js";
export { readTool } from "./read.js";
export { type OutputFormat, structuredOutputTool } from "./structured-output.js";
export { readTodos, restoreTodos } from "./todo-write.js";
export {
  type PageAnswerer,
  WebFetchInput,
  type WebFetchOutput,
  WebFetchSettings,
  type WebFetchToolOptions,
  webFetchTool,
} from "./web-fetch/index.js";
export {
  type SearchBackend,
  SearchFailed,
  type SearchHit,
  type SearchRequest,
  searchBackend,
  WebSearchInput,
  type WebSearchOutput,
  WebSearchSettings,
  type WebSearchToolOptions,
  webSearchTool,
} from "./web-search/index.js";
