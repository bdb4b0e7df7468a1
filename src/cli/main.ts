import { GYRE_VERSION } from "../version.js";
import { takeProviderKeys } from "./provider-keys.js";
import { runEntry } from "./run-entry.js";
import { helpOf, USAGE } from "./help.js";
import { asksForHelp, namesPrintMode, withoutPrintFlag } from "./interactive.js";
import { traced } from "./tracing-setup.js";

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  // `gyre -p …` / `gyre --print …` anywhere before `--`: print mode, as claude -p.
  if (namesPrintMode(argv)) {
    if (asksForHelp(argv)) return help("run");
    const { runCommand } = await import("./run-command.js");
    return traced(() => runCommand(withoutPrintFlag(argv)));
  }
  // `gyre COMMAND --help`: that command's help (gyre mcp has its own, per subcommand).
  if (command !== "mcp" && asksForHelp(rest) && command !== undefined && !command.startsWith("-")) {
    return help(command);
  }
  switch (command) {
    case "run": {
      const { runCommand } = await import("./run-command.js");
      return traced(() => runCommand(rest));
    }
    case "sessions":
      return (await import("./sessions-command.js")).sessionsCommand(rest);
    case "trust":
      return (await import("./trust-command.js")).trustCommand(rest);
    case "untrust":
      return (await import("./trust-command.js")).untrustCommand(rest);
    case "mcp": {
      const { mcpCommand } = await import("./mcp-command.js");
      // `gyre mcp serve` runs agents: traced as gyre run is; the configuration commands are not.
      return rest[0] === "serve" ? traced(() => mcpCommand(rest)) : mcpCommand(rest);
    }
    case "mock-llm":
      return (await import("./mock-llm-command.js")).mockLlmCommand(rest);
    case "serve": {
      const { serveCommand } = await import("./serve-command.js");
      return traced(() => serveCommand(rest));
    }
    case "ui":
      return (await import("./ui-command.js")).uiCommand(rest);
    case "worker": {
      const { workerCommand } = await import("./worker-command.js");
      return traced(() => workerCommand(rest));
    }
    case "doctor":
      return (await import("./doctor-command.js")).doctorCommand(rest);
    case "--version":
    case "-v":
      process.stdout.write(`gyre ${GYRE_VERSION}\n`);
      return 0;
    case "help":
      return help(rest[0]);
    case undefined:
    case "--help":
    case "-h":
      process.stdout.write(USAGE);
      return 0;
    default: {
      if (asksForHelp(argv)) return help(undefined);
      // `gyre "prompt"` is the interactive agent on a terminal (launch.ts starts it before this
      // file loads); without one, the prompt runs in print mode, saying so.
      process.stderr.write("gyre: not a terminal, so running in print mode (gyre run)\n");
      const { runCommand } = await import("./run-command.js");
      return traced(() => runCommand(argv));
    }
  }
}

function help(command: string | undefined): number {
  process.stdout.write(helpOf(command));
  return 0;
}

// Before anything can start a process or be read from /proc: see provider-keys.ts.
takeProviderKeys();
runEntry(() => main(process.argv.slice(2)));
