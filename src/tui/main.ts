// Entry of the interactive agent's bundle (dist/bin/tui-<hash>.js), started by launch.ts.
import { takeProviderKeys } from "../cli/provider-keys.js";
import { runEntry } from "../cli/run-entry.js";
import { runTui } from "./index.js";

takeProviderKeys();
runEntry(() => runTui(process.argv.slice(2)));
