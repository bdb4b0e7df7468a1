import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * Every test process, and every `gyre` a test spawns with `process.env`, keeps sessions in a
 * throwaway GYRE_HOME: nothing lands in the developer's `~/.gyre` or in the checkout.
 */
export default function setup(): () => void {
  const home = mkdtempSync(join(tmpdir(), "gyre-test-home-"));
  process.env.GYRE_HOME = home;
  return () => rmSync(home, { recursive: true, force: true });
}
