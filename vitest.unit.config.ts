// `npm run test:unit`: the unit tests beside the code, for the edit-test loop. No services
// (PostgreSQL, Redis, tmux, bubblewrap), no built CLI (dist/), and none of the files whose
// tests start processes (Bash, hook commands, ripgrep, pseudo-terminals, MCP servers) or read
// and write files of many megabytes: `npm test` runs those, with everything in test/.
// Seconds on a 2-core machine.
import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

export default defineConfig({
  test: {
    ...base.test,
    include: ["src/**/*.test.ts"],
    // One module graph per worker rather than per file: most of the time of these files was
    // importing Gyre and its dependencies again for each (22 s of 30 here). \`npm test\` isolates
    // every file, so a test that leans on another file's module state fails there.
    isolate: false,
    exclude: [
      "src/tools/builtin/bash/*.test.ts",
      "src/hooks/runner-commands.test.ts",
      "src/tools/builtin/grep/grep-tool.test.ts",
      "src/tools/builtin/read-lines.test.ts",
      "src/tools/builtin/read-large-file.test.ts",
      "src/mcp/run-servers.test.ts",
      "src/sandbox/gitlinks.test.ts",
      "src/tui/shell-escape.test.ts",
    ],
  },
});
