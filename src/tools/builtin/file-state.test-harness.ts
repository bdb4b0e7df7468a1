import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { executeTool, prepareCall } from "../execute.js";
import { ToolRegistry } from "../registry.js";
import type { ToolContext, ToolResult } from "../tool.js";
import { ToolSession } from "../tool-session.js";
import { editTool } from "./edit.js";
import { readTool } from "./read.js";
import { writeTool } from "./write.js";

/** Test support for the file tools: a temp folder, one session, and calls as the loop makes them. */
export interface FileToolHarness {
  /** Real path of a fresh temp folder (also the cwd of calls). */
  dir: string;
  session: ToolSession;
  registry: ToolRegistry;
  /** Validate and run a call the way the loop does; failures come back as `is_error` results. */
  call(name: string, input: unknown): Promise<ToolResult>;
  /** The text of a result whose content is a string. */
  text(name: string, input: unknown): Promise<string>;
  cleanup(): void;
}

let calls = 0;

export function fileToolHarness(): FileToolHarness {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "gyre-file-tools-")));
  const session = new ToolSession("file-tools-test");
  const registry = new ToolRegistry([readTool(), writeTool(), editTool()]);
  const call = async (name: string, input: unknown): Promise<ToolResult> => {
    const prepared = prepareCall(registry, { id: `call-${++calls}`, name, input });
    if (!prepared.ok) return prepared.result;
    const context: ToolContext = {
      cwd: dir,
      signal: new AbortController().signal,
      sessionId: session.id,
      toolUseId: prepared.call.id,
      session,
      reportProgress: () => {},
      emit: () => {},
    };
    return executeTool(prepared.tool, prepared.input, context);
  };
  return {
    dir,
    session,
    registry,
    call,
    async text(name, input) {
      const result = await call(name, input);
      if (typeof result.content !== "string") throw new TypeError("expected text content");
      return result.content;
    },
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}
