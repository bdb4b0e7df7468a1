/**
 * A stdio MCP server must not outlive the run that started it, even when that process is
 * killed with SIGKILL (no `exit` handler runs then) and the server ignores the end of its
 * stdin. Node cannot ask the kernel to signal a child when its parent dies (Linux's
 * `PR_SET_PDEATHSIG`), so each server runs under a tiny Node watchdog: it starts the server
 * in its own process group, with the watchdog's stdin/stdout/stderr (the pipes to Gyre),
 * and ends that group when Gyre ends it (SIGTERM) or when Gyre is gone (the watchdog's
 * parent pid changes: it was re-parented). The group is sent SIGTERM, then SIGKILL.
 */

/** Carries `[command, ...args]` (JSON) to the watchdog; removed before the server starts. */
const COMMAND_VARIABLE = "GYRE_MCP_SERVER_COMMAND";

// CommonJS, run with `node -e`: no file to ship or find. Every path ends the server's whole
// process group (a server started through `npx` or a shell has children of its own).
const WATCHDOG_SCRIPT = `
const { spawn } = require("node:child_process");
const [command, ...args] = JSON.parse(process.env.${COMMAND_VARIABLE});
delete process.env.${COMMAND_VARIABLE};
const parent = process.ppid;
const server = spawn(command, args, { stdio: "inherit", detached: true });
const killGroup = (signal) => { try { process.kill(-server.pid, signal); } catch {} };
let ending = false;
const end = () => {
  if (ending) return;
  ending = true;
  killGroup("SIGTERM");
  setTimeout(() => { killGroup("SIGKILL"); process.exit(1); }, 1500).unref();
};
server.on("error", (error) => { process.stderr.write(error.message + "\\n"); process.exit(127); });
server.on("exit", (code) => { killGroup("SIGKILL"); process.exit(code ?? 1); });
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, end);
setInterval(() => { if (process.ppid !== parent) end(); }, 200);
`;

export interface SpawnSpec {
  command: string;
  args: string[];
  env?: Record<string, string>;
}

/** How to start `spec` under the watchdog (as is on Windows, which has no process groups to end). */
export function watched(spec: SpawnSpec): SpawnSpec {
  if (process.platform === "win32") return spec;
  return {
    command: process.execPath,
    args: ["-e", WATCHDOG_SCRIPT],
    env: { ...spec.env, [COMMAND_VARIABLE]: JSON.stringify([spec.command, ...spec.args]) },
  };
}
