import { errorMessage, isGyreError } from "../errors/index.js";

const USAGE = `gyre — an agent runtime

Usage:
  gyre ["<prompt>"] [options]         the interactive agent, on a terminal (options: --model,
                                     --permission-mode, --resume ID, --continue, --cwd, and the
                                     other options of run that set up the agent)
  gyre run "<prompt>" [options]      run the agent once and print the outcome
  gyre sessions list|show ID|rm ID   list this project's sessions (--all: every project's), print one
                                     (tool results in preview; --full: whole; --json: raw), delete one
  gyre trust [PATH]                  let the settings files of PATH (default: here) and its
                                     subfolders grant permissions, run hooks and set env
  gyre trust --list  gyre untrust [PATH]
  gyre mcp list|get NAME|remove NAME  MCP servers of .mcp.json, ~/.gyre/mcp.json, ~/.claude.json
  gyre mcp add NAME [-s local|project|user] [-e KEY=VALUE]... -- COMMAND [ARGS...]
  gyre mcp add -t http|sse NAME URL [-H "Name: value"]...  gyre mcp add-json NAME JSON
                                     add a server (default scope local); gyre mcp help: details
  gyre mcp auth NAME | gyre mcp auth --url URL
                                     log in to a remote MCP server behind OAuth: prints the URL to
                                     open, waits for the browser on a loopback port, keeps the tokens
  gyre mcp serve [--http PORT] [--tools] [options of run]
                                     serve the agent as an MCP tool (and with --tools the built-in
                                     tools) on stdin/stdout, or streamable HTTP on 127.0.0.1:PORT/mcp
  gyre mock-llm --script FILE [--port N] [--host H]
                                     serve a scripted mock LLM (Anthropic, OpenAI and Gemini wire formats)
  gyre serve [--host 127.0.0.1] [--port 8080] [--config FILE] [--db FILE]
                                     an Open Responses (OpenAI Responses API) server running the loop;
                                     API keys from the config or GYRE_API_KEYS (none: loopback only)
  gyre --version

Options of run:
  --output-format text|json|stream-json   what to print (default text)
  --model provider/model-id               e.g. anthropic/claude-sonnet-4-5, or a bare id such as
                                          claude-sonnet-4-5 or gpt-5 (default: $GYRE_MODEL)
  --max-turns N  --max-budget-usd N  --max-budget-tokens N  --cwd DIR
  --system-prompt TEXT  --append-system-prompt TEXT
  --agent NAME                            run as an agent of .claude/agents, .gyre/agents: its prompt,
                                          tools, model and handoffs (a resumed session: its last agent)
  --allowed-tools A,B  --disallowed-tools A,B  --tools A,B
  --include-partial-messages              with stream-json: also print stream events
  --permission-mode default|acceptEdits|plan|bypassPermissions|dontAsk
  --add-dir DIR                           another directory edits may touch (repeatable)
  --setting-sources user,project,local    settings files to read (default: all); in a folder not
                                          trusted (gyre trust), project and local files give only
                                          their deny and ask rules
  --trust-project                         trust this folder's settings for this run only (CI)
  --mcp-config FILE_OR_JSON               MCP servers ({"mcpServers": {...}}) besides the config
                                          files' (repeatable); --strict-mcp-config: only these
  --loop-control                          add task_completion, ask_question and converse; questions are
                                          asked on the terminal and the run goes on with the answer
  --sandbox                               run Bash inside the OS sandbox (bubblewrap): writes only in
                                          the workspace, no network but sandbox.network.allowedDomains
  --max-retries N  --fallback-model provider/model-id   used for the rest of the run when a call fails for good
  --resume ID  --continue  --fork-session  continue a stored session (or the latest one)
  --no-session-persistence                save nothing
  --defer-permissions                     a call that needs permission pauses the run (exit code 3)
                                          instead of being denied; it prints what waits and how to go on
  --approve ID,ID  --deny ID,ID  [--deny-message TEXT]
                                          with --resume: answer the calls a paused run waits on

Exit codes of run: 0 success, 1 error, 3 paused (waiting on approvals).
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "run":
      return (await import("./run-command.js")).runCommand(rest);
    case "sessions":
      return (await import("./sessions-command.js")).sessionsCommand(rest);
    case "trust":
      return (await import("./trust-command.js")).trustCommand(rest);
    case "untrust":
      return (await import("./trust-command.js")).untrustCommand(rest);
    case "mcp":
      return (await import("./mcp-command.js")).mcpCommand(rest);
    case "mock-llm":
      return (await import("./mock-llm-command.js")).mockLlmCommand(rest);
    case "serve":
      return (await import("./serve-command.js")).serveCommand(rest);
    case "--version":
    case "-v":
      process.stdout.write("gyre 0.1.0\n");
      return 0;
    case undefined:
    case "help":
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return 0;
    default:
      // `gyre "prompt"` is the interactive agent on a terminal (launch.ts starts it before this
      // file loads); without one, the prompt runs in print mode, saying so.
      process.stderr.write("gyre: not a terminal, so running in print mode (gyre run)\n");
      return (await import("./run-command.js")).runCommand(argv);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const prefix = isGyreError(error) ? `gyre: ${error.code}: ` : "gyre: ";
    process.stderr.write(`${prefix}${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
