import { parseCommandArgs } from "../cli/parse-command-args.js";
import type { QueryOptions } from "../loop/index.js";
import { list, mcpServersOf, permissionMode } from "../cli/run-options.js";

/** What `gyre [prompt] [options]` starts with: the loop's options and the first prompt, if any. */
export interface TuiStart {
  options: QueryOptions;
  prompt: string | undefined;
  cwd: string;
}

/** Reads the options of the interactive agent (the options of `gyre run` that set up the agent). */
export async function parseTuiArgs(args: string[]): Promise<TuiStart> {
  const { values, positionals } = parseCommandArgs({
    args,
    allowPositionals: true,
    options: {
      model: { type: "string" },
      "permission-mode": { type: "string" },
      resume: { type: "string", short: "r" },
      continue: { type: "boolean", short: "c", default: false },
      cwd: { type: "string" },
      agent: { type: "string" },
      "system-prompt": { type: "string" },
      "append-system-prompt": { type: "string" },
      "allowed-tools": { type: "string" },
      "disallowed-tools": { type: "string" },
      tools: { type: "string" },
      "add-dir": { type: "string", multiple: true },
      "setting-sources": { type: "string", default: "user,project,local" },
      "trust-project": { type: "boolean", default: false },
      "mcp-config": { type: "string", multiple: true },
      "strict-mcp-config": { type: "boolean", default: false },
      sandbox: { type: "boolean", default: false },
      "no-session-persistence": { type: "boolean", default: false },
    },
  });
  const cwd = values.cwd ?? process.cwd();
  const options: QueryOptions = {
    model: values.model,
    permissionMode: permissionMode(values["permission-mode"]),
    resume: values.resume,
    continue: values.continue,
    cwd,
    agent: values.agent,
    allowedTools: list(values["allowed-tools"]),
    disallowedTools: list(values["disallowed-tools"]),
    tools: list(values.tools),
    additionalDirectories: values["add-dir"],
    settingSources: list(values["setting-sources"]) as QueryOptions["settingSources"],
    requireProjectTrust: !values["trust-project"],
    ...(values["mcp-config"] && { mcpServers: await mcpServersOf(values["mcp-config"]) }),
    strictMcpConfig: values["strict-mcp-config"],
    ...(values.sandbox && { sandbox: { enabled: true } }),
    persistSession: !values["no-session-persistence"],
    systemPrompt: values["system-prompt"] ?? { type: "preset", preset: "gyre", append: values["append-system-prompt"] },
  };
  const prompt = positionals.join(" ").trim();
  return { options, prompt: prompt === "" ? undefined : prompt, cwd };
}
