import { errorMessage, isGyreError } from "../errors/index.js";

/**
 * Runs a bundle's entry: its exit code becomes the process's, and an error it throws is one
 * line on stderr (`gyre: CODE: message` for a GyreError) with exit code 1, never a stack trace.
 */
export function runEntry(main: () => Promise<number>): void {
  endQuietlyWhenOutputCloses();
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      const prefix = isGyreError(error) ? `gyre: ${error.code}: ` : "gyre: ";
      process.stderr.write(`${prefix}${errorMessage(error)}\n`);
      process.exitCode = 1;
    },
  );
}

/**
 * `gyre sessions list | head -1`: once the reader of stdout or stderr has gone, there is no one
 * to tell anything, so the command ends at once and quietly (as `ls | head -1` does), not with
 * an EPIPE stack trace. What was stored (sessions, files) is already stored.
 */
function endQuietlyWhenOutputCloses(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
      throw error;
    });
  }
}
