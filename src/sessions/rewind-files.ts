import { mkdir, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { atomicWriteFile } from "../files/index.js";
import { type StoreLocation, withStore } from "./open-store.js";
import { filesToRestore } from "./store.js";

export interface RewindFilesResult {
  /** Files written back to their earlier content. */
  restored: string[];
  /** Files that did not exist at that point and were removed. */
  deleted: string[];
}

/**
 * Restores the workspace files changed since `messageUuid` (that message's own changes
 * included) to their content before it, from the session's file checkpoints. Files the
 * tools created are deleted. Unknown uuids are `session_message_not_found`.
 */
export async function rewindFiles(
  sessionId: string,
  messageUuid: string,
  options: StoreLocation & { dryRun?: boolean } = {},
): Promise<RewindFilesResult> {
  const checkpoints = await withStore(options, (store) => store.getCheckpoints(sessionId, messageUuid));
  const result: RewindFilesResult = { restored: [], deleted: [] };
  for (const [filePath, content] of filesToRestore(checkpoints)) {
    if (content === null) {
      if (!options.dryRun) await rm(filePath, { force: true });
      result.deleted.push(filePath);
    } else {
      if (!options.dryRun) {
        await mkdir(dirname(filePath), { recursive: true });
        // Never a half-restored file: a crash or full disk leaves the current content whole.
        await atomicWriteFile(filePath, content, { toolName: "rewindFiles" });
      }
      result.restored.push(filePath);
    }
  }
  return result;
}
