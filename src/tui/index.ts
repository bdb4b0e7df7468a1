export { AgentSession, type AgentSessionEvents, type PermissionRequest } from "./agent-session.js";
export { persistAllowRules, suggestedRules } from "./allow-always.js";
export { PromptHistory } from "./prompt-history.js";
export { runTui } from "./run-tui.js";
export { Transcript, type TranscriptItem, type ToolState } from "./transcript.js";
export { MODE_CYCLE, TuiController } from "./tui-controller.js";
