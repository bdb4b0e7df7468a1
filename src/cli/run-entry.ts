import { errorMessage, isGyreError } from "../errors/index.js";

/**
 * Runs a bundle's entry: its exit code becomes the process's, and an error it throws is one
 * line on stderr (`gyre: CODE: message` for a GyreError) with exit code 1, never a stack trace.
 */
export function runEntry(main: () => Promise<number>): void {
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
