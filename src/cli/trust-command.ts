import { parseCommandArgs } from "./parse-command-args.js";
import { GyreError } from "../errors/index.js";
import { listTrustedFolders, trustFolder, untrustFolder } from "../settings/index.js";

const USAGE = "usage: gyre trust [PATH] | gyre trust --list | gyre untrust [PATH]";

/**
 * `gyre trust [PATH]` (default: the current folder): the project and local settings, agent
 * files and `.mcp.json` servers of PATH and its subfolders apply in full from the next run
 * on. `gyre trust --list` prints the trusted folders, one a line: the date trusted, two
 * spaces, the path.
 */
export async function trustCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs({
    args,
    allowPositionals: true,
    options: { list: { type: "boolean", default: false } },
  });
  if (values.list) {
    if (positionals.length > 0) throw new GyreError("config_error", `--list takes no path; ${USAGE}`);
    for (const folder of await listTrustedFolders()) {
      write(`${folder.trustedAt.slice(0, 10)}  ${folder.path}\n`);
    }
    return 0;
  }
  const { folder, added } = await trustFolder(onePath(positionals));
  write(
    added
      ? `trusted ${folder.path} and its subfolders: their .gyre/ and .claude/ settings, agent files and .mcp.json servers apply in full from the next run\n`
      : `already trusted through ${folder.path}\n`,
  );
  return 0;
}

/**
 * `gyre untrust [PATH]`: remove PATH's own record. Exit code 1 when a trusted parent still
 * covers PATH, since the folder is then trusted all the same.
 */
export async function untrustCommand(args: string[]): Promise<number> {
  const { positionals } = parseCommandArgs({ args, allowPositionals: true, options: {} });
  const target = onePath(positionals);
  const { removed, stillTrustedBy } = await untrustFolder(target);
  if (removed) write(`untrusted ${removed.path}\n`);
  if (stillTrustedBy) {
    process.stderr.write(
      `gyre: ${target} is still trusted through ${stillTrustedBy.path}; to stop that: gyre untrust ${stillTrustedBy.path}\n`,
    );
    return 1;
  }
  if (!removed) write(`${target} was not trusted\n`);
  return 0;
}

function onePath(positionals: string[]): string {
  if (positionals.length > 1) throw new GyreError("config_error", `one path at most; ${USAGE}`);
  return positionals[0] ?? process.cwd();
}

function write(text: string): void {
  process.stdout.write(text);
}
