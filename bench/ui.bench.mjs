// gyre ui: the script time the page spends opening a session of 1,000 turns and 5,000 tool
// calls (issue 34), measured in Debian's headless chromium (driven by playwright-core from the
// compat cache: npm run compat:install playwright-core). Build first: npm run build.
import { mkdtempSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { peerDir } from "../scripts/compat-install.mjs";
import { openSqliteSessionStore } from "../dist/sessions/index.js";
import { startUi } from "../dist/ui/index.js";
import { largeSession, openLargeSession } from "./ui-open.mjs";

const TURNS = 1000;
const CALLS_PER_TURN = 5;
const ROUNDS = 3;

const { chromium } = createRequire(join(peerDir("playwright-core"), "package.json"))("playwright-core");
const dir = mkdtempSync(join(tmpdir(), "gyre-bench-ui-"));
const store = openSqliteSessionStore({ path: join(dir, "sessions.db") });
const id = "bench-large-session";
await store.createSession({ id, cwd: dir, title: "A thousand turns" }, largeSession(id, dir, TURNS, CALLS_PER_TURN));
const ui = await startUi({ store });
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox"] });
try {
  for (let round = 1; round <= ROUNDS; round++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(ui.url);
    const { scriptMs, mainThreadMs, openedMs } = await openLargeSession(page, id, TURNS);
    console.log(
      `ui open ${TURNS} turns / ${TURNS * CALLS_PER_TURN} tool calls (round ${round}): ` +
        `script ${Math.round(scriptMs)} ms, main thread ${Math.round(mainThreadMs)} ms, shown after ${Math.round(openedMs)} ms`,
    );
    await context.close();
  }
} finally {
  await browser.close();
  await ui.close();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
