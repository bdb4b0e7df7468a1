import { accessSync, constants, existsSync, statSync } from "node:fs";
import path from "node:path";
import { parseCommandArgs } from "./parse-command-args.js";
import { type Check, diagnoseSandbox } from "../sandbox/index.js";
import { defaultSqlitePath } from "../sessions/index.js";
import { findRipgrep } from "../tools/builtin/index.js";

const MINIMUM_NODE = [20, 19] as const;

/**
 * `gyre doctor [--json]`: what Gyre and its OS sandbox need, checked on this machine.
 * Exit code 1 when something required is missing (optional things only warn).
 */
export async function doctorCommand(args: string[]): Promise<number> {
  const { values } = parseCommandArgs({ args, options: { json: { type: "boolean", default: false } } });
  const checks = [nodeCheck(), ripgrepCheck(), storeCheck(), ...(await diagnoseSandbox(process.env.PATH))];
  const healthy = checks.every((check) => check.status === "ok" || !check.required);
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ ok: healthy, checks }, null, 2)}\n`);
  } else {
    for (const check of checks) {
      const mark = check.status === "ok" ? "ok  " : check.required ? "FAIL" : "warn";
      process.stdout.write(`${mark}  ${check.name.padEnd(16)} ${check.detail}\n`);
    }
    process.stdout.write(
      healthy ? "\nEverything Gyre needs is here.\n" : "\nSomething Gyre needs is missing (FAIL above).\n",
    );
  }
  return healthy ? 0 : 1;
}

function nodeCheck(): Check {
  const [major = 0, minor = 0] = process.versions.node.split(".").map(Number);
  const recent = major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
  const detail = `${process.version}${recent ? "" : `: Gyre needs ${MINIMUM_NODE.join(".")} or later`}`;
  return { name: "node", status: recent ? "ok" : "missing", required: true, detail };
}

function ripgrepCheck(): Check {
  const rg = findRipgrep();
  return rg
    ? { name: "ripgrep", status: "ok", required: false, detail: rg }
    : {
        name: "ripgrep",
        status: "missing",
        required: false,
        detail: "rg not on PATH: Grep and Glob use a slower built-in search (apt-get install ripgrep)",
      };
}

/** The session database, or the folder it would be created in, must be writable. */
function storeCheck(): Check {
  const file = defaultSqlitePath(process.env);
  let target = file;
  while (!existsSync(target) && path.dirname(target) !== target) target = path.dirname(target);
  try {
    // A missing database is created with its folders: what exists on the way must be a folder.
    if (target !== file && !statSync(target).isDirectory()) throw new Error("not a folder");
    accessSync(target, constants.W_OK);
    return { name: "session store", status: "ok", required: true, detail: `${file} (writable)` };
  } catch {
    return {
      name: "session store",
      status: "missing",
      required: true,
      detail: `${file}: ${target} is not a writable folder; set GYRE_HOME to a writable folder or pass --no-session-persistence`,
    };
  }
}
