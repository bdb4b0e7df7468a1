// Entry of the interactive agent's bundle (dist/bin/tui-<hash>.js), started by launch.ts.
import { errorMessage, isGyreError } from "../errors/index.js";
import { runTui } from "./index.js";

runTui(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const prefix = isGyreError(error) ? `gyre: ${error.code}: ` : "gyre: ";
    process.stderr.write(`${prefix}${errorMessage(error)}\n`);
    process.exitCode = 1;
  },
);
