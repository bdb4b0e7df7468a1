// Entry of the interactive agent's bundle (dist/bin/tui-<hash>.js), started by launch.ts.
import { runEntry } from "../cli/run-entry.js";
import { runTui } from "./index.js";

runEntry(() => runTui(process.argv.slice(2)));
