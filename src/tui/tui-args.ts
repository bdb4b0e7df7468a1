import {
  cliPermissionHint,
  list,
  mcpServersOf,
  parseCommandArgs,
  permissionMode,
  pluginDirs,
  providerEnvironment,
  takeBareResume,
} from "../cli/index.js";
import { nodeFetch } from "../net/index.js";
import type { QueryOptions } from "../run/index.js";
import { GyreError } from "../errors/index.js";

/** What `gyre [prompt] [options]` starts with: the loop's options and the first prompt, if any. */
export interface TuiStart {
  options: QueryOptions;
  prompt: string | undefined;
  cwd: string;
  /** `--resume`/`-r` came with no session id: the session picker opens at start. */
  pickSession: boolean;
}

/** Reads the options of the interactive agent (the options of `gyre run` that set up the agent). */
export async function parseTuiArgs(args: string[]): Promise<TuiStart> {
  const resume = takeBareResume(args);
  const { values, positionals } = parseCommandArgs({
    args: resume.args,
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
      "plugin-dir": { type: "string", multiple: true },
      sandbox: { type: "boolean", default: false },
      "no-session-persistence": { type: "boolean", default: false },
    },
  });
  const cwd = values.cwd ?? process.cwd();
  const options: QueryOptions = {
    env: providerEnvironment(),
    // Model requests over node:http: the agent does not pay for loading undici (src/net/node-fetch.ts).
    fetch: nodeFetch,
    model: values.model,
    permissionMode: permissionMode(values["permission-mode"]),
    // The person is asked, but not in dontAsk mode: its denials say what to do instead.
    permissionHint: cliPermissionHint("gyre"),
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
    ...(values["plugin-dir"] && { plugins: pluginDirs(values["plugin-dir"]) }),
    ...(values.sandbox && { sandbox: { enabled: true } }),
    persistSession: !values["no-session-persistence"],
    systemPrompt: values["system-prompt"] ?? { type: "preset", preset: "gyre", append: values["append-system-prompt"] },
  };
  const prompt = positionals.join(" ").trim();
  // The picker has the keyboard at start: a first prompt could only start another session.
  if (resume.bare && prompt !== "")
    throw new GyreError(
      "config_error",
      `${resume.bare} with no session id opens a picker: type the prompt once a session is chosen`,
    );
  return { options, prompt: prompt === "" ? undefined : prompt, cwd, pickSession: resume.bare !== undefined };
}
