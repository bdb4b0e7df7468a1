// Checks the public surface against what is committed, after `npm run build`:
// - the API of each entry point (`gyre`, `gyre/testing`, `gyre/server`), as API Extractor reports it from
//   the built .d.ts, must equal api/<name>.api.md;
// - the npm tarball must hold no tests, fixtures, harnesses or snapshots.
// `node scripts/api-report.mjs --update` (npm run api) rewrites the reports instead of failing.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const ROOT = resolve(import.meta.dirname, "..");
const update = process.argv.includes("--update");

/** Each entry point of package.json's `exports` with a report of its own. */
const ENTRIES = [
  { name: "gyre", types: "dist/index.d.ts" },
  { name: "gyre-testing", types: "dist/testing/index.d.ts" },
  { name: "gyre-server", types: "dist/server/index.d.ts" },
];

/** Files that exist for tests only; none may ship. */
const TEST_ONLY =
  /(^|\/)__snapshots__\/|\.snap$|\.test\.|\.spec\.|\.test-harness\.|(^|\/|-)fixtures?[./-]|(^|\/|-)harness[./-]|test-support/;

let failed = false;
const temp = mkdtempSync(join(tmpdir(), "gyre-api-"));
mkdirSync(join(ROOT, "api"), { recursive: true });
try {
  for (const entry of ENTRIES) checkReport(entry);
  checkTarball();
} finally {
  rmSync(temp, { recursive: true, force: true });
}
if (failed) process.exitCode = 1;

function checkReport({ name, types }) {
  if (!existsSync(join(ROOT, types))) {
    fail(`${types} is missing: run npm run build first.`);
    return;
  }
  const config = ExtractorConfig.prepare({
    configObject: {
      projectFolder: ROOT,
      mainEntryPointFilePath: join(ROOT, types),
      compiler: {
        overrideTsconfig: {
          compilerOptions: {
            target: "ES2022",
            lib: ["ES2023"],
            module: "NodeNext",
            moduleResolution: "NodeNext",
            strict: true,
            skipLibCheck: true,
            types: ["node"],
          },
          files: [join(ROOT, types)],
        },
      },
      apiReport: {
        enabled: true,
        reportFileName: name,
        reportFolder: join(ROOT, "api"),
        reportTempFolder: temp,
        // Types the API names but does not export would be listed too (the check fails on them).
        includeForgottenExports: true,
      },
      docModel: { enabled: false },
      dtsRollup: { enabled: false },
      tsdocMetadata: { enabled: false },
      messages: {
        compilerMessageReporting: { default: { logLevel: "warning" } },
        extractorMessageReporting: {
          // Every warning fails the check (a report keeps none): a public signature that names a type
          // its entry point does not export, a {@link} to nothing.
          default: { logLevel: "warning", addToApiReportFile: false },
          // Release tags (@public, @beta) are not how Gyre marks its API: the entry points are.
          "ae-missing-release-tag": { logLevel: "none", addToApiReportFile: false },
          // A type the API names but its entry point does not export: users cannot name it.
          "ae-forgotten-export": { logLevel: "warning", addToApiReportFile: false },
          // Which members lack a doc comment is not part of the API.
          "ae-undocumented": { logLevel: "none", addToApiReportFile: false },
        },
        // Doc comments are prose for people, not strict TSDoc.
        tsdocMessageReporting: { default: { logLevel: "none", addToApiReportFile: false } },
      },
    },
    configObjectFullPath: undefined,
    packageJsonFullPath: join(ROOT, "package.json"),
  });
  const messages = [];
  let diff = "";
  const result = Extractor.invoke(config, {
    localBuild: update,
    printApiReportDiff: !update,
    messageCallback: (message) => {
      message.handled = true;
      if (message.messageId === "console-api-report-diff") diff = message.text;
      // API Extractor's own progress notes and "report changed" warnings: the result says those.
      else if (message.category !== "console" || message.logLevel === "error") {
        if (message.logLevel !== "none") messages.push(message.formatMessageWithLocation(ROOT));
      }
    },
  });
  for (const message of messages) console.error(`${name}: ${message}`);
  if (result.errorCount > 0 || messages.length > 0) fail(`${name}: API Extractor reported problems (above).`);
  if (result.apiReportChanged && update) console.log(`api/${name}.api.md updated: review and commit it.`);
  else if (result.apiReportChanged) {
    fail(
      `The public API of ${name} changed: api/${name}.api.md does not match the build.\n` +
        `If the change is intended, run \`npm run build && npm run api\`, then review and commit api/${name}.api.md.\n` +
        (diff || "(api/" + name + ".api.md is missing)"),
    );
  }
}

function checkTarball() {
  const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: ROOT,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "ignore"],
  });
  const files = JSON.parse(output)[0].files.map((file) => file.path);
  const shipped = files.filter((path) => TEST_ONLY.test(path));
  if (shipped.length > 0) {
    fail(
      `The npm tarball holds files that exist for tests:\n  ${shipped.join("\n  ")}\n` +
        "  Exclude them from the build in tsconfig.build.json.",
    );
  }
}

function fail(message) {
  console.error(message);
  failed = true;
}
