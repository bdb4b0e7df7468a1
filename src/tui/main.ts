// Entry of the interactive agent's bundle (dist/bin/tui-<hash>.mjs), started by launch.ts.
import { runEntry, takeProviderKeys } from "../cli/index.js";
import { runTui } from "./index.js";

takeProviderKeys();
runEntry(() => runTui(process.argv.slice(2)));
