/** What `gyre --help` prints: every command, one or two lines each. */
export const USAGE = `gyre — an agent runtime

Usage:
  gyre ["<prompt>"] [options]         the interactive agent, on a terminal (options: --model,
                                     --permission-mode, --resume [ID], --continue, --cwd, and the
                                     other options of run that set up the agent)
  gyre run ["<prompt>"] [options]    run the agent once and print the outcome (gyre run --help);
  gyre -p|--print ["<prompt>"] ...   the same, as claude -p; the prompt may come from stdin
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
  gyre serve [--host 127.0.0.1] [--port 8080] [--backlog 2048] [--config FILE] [--store URL] [--quiet]
                                     an Open Responses (OpenAI Responses API) server running the loop;
                                     API keys from the config or GYRE_API_KEYS (none: loopback only);
                                     --store sqlite:PATH (default) or postgres://… (or GYRE_STORE_URL);
                                     --queue redis://… (or GYRE_QUEUE_URL): responses as jobs of a
                                     cluster's queue, --concurrency N of them run here (default 50);
                                     /ui: each key's own runs in a browser (config ui: false: off)
  gyre ui [--port N] [--store URL]   a local web page to watch and replay runs (on 127.0.0.1,
                                     with a token in the address it prints)
  gyre worker --queue URL [--store URL] [--config FILE] [--concurrency N] [--shutdown-grace S]
                                     run responses from the cluster's queue (see gyre serve --queue)
  gyre doctor [--json]               check what Gyre and its OS sandbox need (bubblewrap, user
                                     namespaces, socat, a trial sandboxed command, ripgrep, Node,
                                     the session store); exit code 1 when something required is missing
  gyre --version

Every command prints its own help with --help (gyre run --help: the options of print mode).
`;

/** What `gyre run --help` prints. */
export const RUN_HELP = `Usage: gyre run ["<prompt>"] [options]      (also: gyre -p ["<prompt>"] [options])

Runs the agent once and prints the outcome. The prompt is the arguments; "-" or no prompt
reads it from stdin (echo "fix it" | gyre run). With a prompt argument, stdin that is a shell
pipe or a file is appended to the prompt as context (git diff | gyre run "review this").

Output:
  --output-format text|json|stream-json   what to print (default text: the answer)
  --input-format text|stream-json         stream-json: user messages as JSON lines on stdin
                                          ({"type":"user","message":{"role":"user","content":…}}),
                                          run in order in one session; needs --output-format stream-json
  --include-partial-messages              with stream-json: also print stream events
  --json-schema SCHEMA                    structured output: a JSON Schema (JSON text or a file) the
                                          answer must match; the result has it as structured_output
  --verbose                               text: each tool call and its outcome on stderr
  --debug                                 a debug log of the run on stderr
Model and limits:
  --model provider/model-id               e.g. anthropic/claude-sonnet-4-5, or a bare id such as
                                          claude-sonnet-4-5 or gpt-5 (default: $GYRE_MODEL, else
                                          anthropic/claude-sonnet-5-5)
  --fallback-model provider/model-id      used for the rest of the run when a call fails for good
  --max-turns N  --max-budget-usd N  --max-budget-tokens N  --max-retries N
Agent:
  --cwd DIR  --system-prompt TEXT  --append-system-prompt TEXT
  --agent NAME                            run as an agent of .claude/agents, .gyre/agents, --agents: its
                                          prompt, tools, model and handoffs (a resumed session: its last agent)
  --agents JSON                           subagent definitions, as claude's flag:
                                          {"reviewer": {"description": "…", "prompt": "…", "tools": ["Read"]}}
  --allowed-tools A,B  --disallowed-tools A,B  --tools A,B
  --loop-control                          add task_completion, ask_question and converse; questions are
                                          asked on the terminal and the run goes on with the answer
Permissions and settings:
  --permission-mode default|acceptEdits|plan|bypassPermissions|dontAsk
  --dangerously-skip-permissions          the same as --permission-mode bypassPermissions
  --add-dir DIR                           another directory edits may touch (repeatable)
  --settings FILE_OR_JSON                 more settings, over the settings files (a file or the JSON)
  --setting-sources user,project,local    settings files to read (default: all); in a folder not
                                          trusted (gyre trust), project and local files give only
                                          their deny and ask rules
  --trust-project                         trust this folder's settings for this run only (CI)
  --mcp-config FILE_OR_JSON               MCP servers ({"mcpServers": {...}}) besides the config
                                          files' (repeatable); --strict-mcp-config: only these
  --plugin-dir DIR                        load a plugin folder (.claude-plugin/plugin.json; repeatable):
                                          its commands, agents, skills, hooks and MCP servers
  --sandbox                               run Bash inside the OS sandbox (bubblewrap): writes only in
                                          the workspace, no network but sandbox.network.allowedDomains
  --defer-permissions                     a call that needs permission pauses the run (exit code 3)
                                          instead of being denied; it prints what waits and how to go on
  --approve ID,ID  --deny ID,ID  [--deny-message TEXT]
                                          with --resume: answer the calls a paused run waits on
  --answer 'ID={"Question?":"Answer"}'    with --resume: answer an AskUserQuestion call that waits
Sessions:
  -r, --resume [ID]  -c, --continue       continue a stored session (or the latest one here);
                                          -r alone, on a terminal: pick a recent one here
  --fork-session                          with --resume/--continue: go on in a copy
  --session-id UUID                       the id of the new session
  --no-session-persistence                save nothing

Exit codes: 0 success, 1 error (a wrong option too), 3 paused (waiting on approvals).
`;

const COMMAND_HELP: Record<string, string> = {
  run: RUN_HELP,
  sessions: `Usage: gyre sessions list [--all] [--json] [--limit N] [--cwd DIR]
       gyre sessions show ID [--full] [--json]
       gyre sessions rm ID

list: this project's sessions (--all: every project's), newest first.
show: the transcript, tool results in preview (--full: whole; --json: the stored messages).
rm: delete a session with its subagents' sessions.
`,
  trust: `Usage: gyre trust [PATH] | gyre trust --list

Lets the settings files, agent files and .mcp.json of PATH (default: the current folder)
and its subfolders grant permissions, run hooks, set env and start MCP servers. The
interactive agent asks the same at its first start in such a folder. --list prints the
trusted folders.
`,
  untrust: `Usage: gyre untrust [PATH]

Removes PATH's (default: the current folder's) trust record; exit code 1 when a trusted
parent folder still covers it.
`,
  "mock-llm": `Usage: gyre mock-llm --script FILE [--port N] [--host 127.0.0.1]

Serves a scripted mock LLM speaking the Anthropic, OpenAI and Gemini wire formats until
interrupted; prints the address and the environment that points gyre at it.
`,
  serve: `Usage: gyre serve [--host 127.0.0.1] [--port 8080] [--backlog 2048] [--config FILE] [--store URL]
                  [--queue URL [--concurrency N]] [--shutdown-grace S] [--quiet]

An Open Responses (OpenAI Responses API) server running the loop. API keys come from the
config or GYRE_API_KEYS (without any, it listens on loopback only). Responses, conversations
and their runs (each step committed as the loop makes it) are kept in the store of --store,
else GYRE_STORE_URL: sqlite:PATH (default: Gyre's own database; --db FILE is the same as
--store sqlite:FILE) or postgres://USER@HOST:PORT/DATABASE[?schema=NAME], shared by every
instance on it. A store that cannot be opened stops it with exit code 1. --backlog:
connections the kernel queues for the server while it is busy (Linux caps it at
net.core.somaxconn). Each request is logged on stderr when its
response ends (time, method, path, status, duration, the response's id); --quiet (-q) leaves
the log out.

With --queue redis://HOST:PORT[/DB] (or GYRE_QUEUE_URL) every response is a job of the
cluster's queue (BullMQ on Redis): whichever process works the queue runs it (gyre worker
processes, and this one, --concurrency N at a time, default 50; 0: it only answers HTTP), its
events reach the client through Redis, and any instance can follow or cancel any response. A
worker lost mid-run has its runs taken over by another from their last committed step. On
SIGTERM, running responses get --shutdown-grace seconds (default 10) to end; the rest are
handed back to the queue. Redis that cannot be reached at start stops it with exit code 1.
`,
  ui: `Usage: gyre ui [--port N] [--store URL]

Serves a web page to watch and replay runs: the sessions, each run's timeline (model requests,
tool calls with their permission decisions, hooks, diffs, subagents, costs), live while runs
run. It listens on 127.0.0.1 only (--port, default a free one) and prints the address to open,
with a token that every request needs (the page keeps it in a cookie). The store is the one
gyre run and gyre serve write: --store sqlite:PATH or postgres://… (else GYRE_STORE_URL, else
Gyre's own database). It only reads the store. Stops on SIGINT/SIGTERM. See docs/ui.md.
`,
  worker: `Usage: gyre worker --queue URL [--store URL] [--config FILE] [--concurrency N] [--shutdown-grace S]

Runs responses from the cluster's queue (see gyre serve --queue), --concurrency N at a time
(default 50), with the same config file (models, providers, tools, permissions, workspace,
sandbox) and store (--store, GYRE_STORE_URL) as the gyre serve instances that take the
requests. On SIGTERM it stops taking jobs, gives running ones --shutdown-grace seconds (default
10) to end, and hands the rest back to the queue for another worker.
`,
  doctor: `Usage: gyre doctor [--json]

Checks what Gyre and its OS sandbox need: bubblewrap, user namespaces, socat, a trial
sandboxed command, ripgrep, Node, the session store. Exit code 1 when something required is missing.
`,
};

/** The help of `gyre COMMAND`, or the general usage for a command without its own. */
export function helpOf(command: string | undefined): string {
  return (command !== undefined && COMMAND_HELP[command]) || USAGE;
}
