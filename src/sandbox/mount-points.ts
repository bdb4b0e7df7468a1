import { rmdirSync } from "node:fs";
import { lstatOrNone } from "./workspace-walk.js";

/**
 * The folders bubblewrap creates on the host as mount points of the empty read-only folders
 * (`.claude/`, `.gyre/`, `.git/modules/`, …), removed again so that the workspace is left as it
 * was found. Only while no sandboxed command runs: removing a mount point on the host detaches
 * the mount of a command that still runs, which could then create the folder itself.
 */
export class MountPoints {
  /** Mount points that were missing when a command was about to start: bubblewrap creates them. */
  readonly #ours = new Set<string>();
  #running = 0;
  /** A sandboxed MCP server runs until the run closes, and nothing tells when it ends before that. */
  #pinned = false;

  /** A command is about to start with empty folders mounted at `targets`. */
  starting(targets: readonly string[]): void {
    for (const target of targets) if (!lstatOrNone(target)) this.#ours.add(target);
  }

  /** A command starts (counted until `ended`); `lasting`: one that may run until the run closes. */
  begin(lasting = false): void {
    if (lasting) this.#pinned = true;
    else this.#running++;
  }

  /** A command ended: with none left running, remove our mount points. */
  ended(): void {
    this.#running = Math.max(0, this.#running - 1);
    if (this.#running === 0 && !this.#pinned) this.removeOurs();
  }

  /**
   * Remove the empty mount points we created (rmdir: a folder that is not empty, or not a
   * folder, is not ours to remove and stays). At close, once nothing runs, whatever the count.
   */
  removeOurs(): void {
    for (const target of this.#ours) {
      if (lstatOrNone(target)?.isDirectory()) {
        try {
          rmdirSync(target);
        } catch {
          // Not empty: someone put something there; it stays.
        }
      }
      this.#ours.delete(target);
    }
  }
}
