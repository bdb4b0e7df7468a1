import { homedir } from "node:os";
import { render } from "ink";
import { gyreCommand } from "../cli/index.js";
import { App } from "./app.js";
import { runBuiltinCommand } from "./builtin-commands.js";
import { noColorRequested, withoutColors } from "./no-color.js";
import { BRACKETED_PASTE_OFF, BRACKETED_PASTE_ON } from "./paste.js";
import { PromptHistory } from "./prompt-history.js";
import { TuiController } from "./tui-controller.js";
import { parseTuiArgs } from "./tui-args.js";
import { loadPlugins } from "../plugins/index.js";
import { loadPluginCommands, loadUserCommands } from "../commands/index.js";

/**
 * `gyre [prompt] [options]` on a terminal: the interactive agent. Resolves with the exit
 * code once the person quits; the session's id is printed so it can be resumed.
 */
export async function runTui(args: string[]): Promise<number> {
  const start = await parseTuiArgs(args);
  const history = new PromptHistory(start.cwd);
  await history.load();
  const own = await loadUserCommands({ cwd: start.cwd, home: homedir() });
  // Plugins' commands (`/kit:hello`); a plugin that cannot be read fails the run with its error at the first prompt.
  const plugins = await loadPlugins(start.options.plugins ?? [], { cwd: start.cwd }).catch(() => []);
  const fromPlugins = await loadPluginCommands(plugins);
  for (const [name, command] of fromPlugins.commands) if (!own.commands.has(name)) own.commands.set(name, command);
  own.problems.push(...fromPlugins.problems);
  let exit = () => {};
  const controller = new TuiController({
    options: start.options,
    cwd: start.cwd,
    history,
    exit: () => exit(),
    clearScreen: () => process.stdout.write("\x1b[2J\x1b[3J\x1b[H"),
    userCommands: own.commands,
  });
  for (const problem of own.problems) controller.notice(`Command file skipped: ${problem}`, "error");
  // NO_COLOR: Ink's colours are stripped from what it writes (bold, dim and inverse stay).
  const stdout = noColorRequested() ? withoutColors(process.stdout) : process.stdout;
  const instance = render(<App controller={controller} cwd={start.cwd} />, { exitOnCtrlC: false, stdout });
  exit = () => instance.unmount();
  // Pastes come marked, so a long one can stand as a placeholder and its line ends never send it.
  process.stdout.write(BRACKETED_PASTE_ON);
  const exited = instance.waitUntilExit();
  // Whether to trust the folder comes first: nothing of it (hooks, MCP servers) runs before
  // that. Quitting with the question open starts nothing.
  const answered = await Promise.race([
    controller.checkProjectTrust().then(() => true),
    exited.then(
      () => false,
      () => false,
    ),
  ]);
  if (answered) {
    // --resume and --continue show the session they go on with (its title and last exchange);
    // with no id, the /resume picker chooses it.
    if (start.options.resume) await controller.showSessionAtStart({ resume: start.options.resume });
    else if (start.options.continue) await controller.showSessionAtStart({ continue: true });
    else if (start.pickSession) await runBuiltinCommand(controller, "resume", "");
    if (start.prompt) controller.submit(start.prompt);
  }
  await exited.finally(() => process.stdout.write(BRACKETED_PASTE_OFF));
  const sessionId = controller.session.sessionId;
  if (sessionId && start.options.persistSession !== false) {
    process.stdout.write(`Session ${sessionId}. Go on with: ${gyreCommand()} --resume ${sessionId}\n`);
  }
  return 0;
}
