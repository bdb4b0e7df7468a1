import { useState } from "preact/hooks";
import { DiffView } from "./diff-view.js";
import { clip, duration } from "./format.js";
import type { CallNotes } from "./timeline.js";
import type { ToolPart } from "./types.js";

const OUTPUT_MAX = 2000;

/** Text that shows its start, with "show all" for the rest. */
export function Clipped({ text, max = OUTPUT_MAX, testId }: { text: string; max?: number; testId?: string }) {
  const [all, setAll] = useState(false);
  const shown = all ? { text, cut: false } : clip(text, max);
  return (
    <div class="clipped">
      <pre data-testid={testId}>{shown.text}</pre>
      {shown.cut && (
        <button type="button" class="link" onClick={() => setAll(true)}>
          show all ({text.length.toLocaleString()} characters)
        </button>
      )}
    </div>
  );
}

/** What a call is about, in a few words: its command, path or pattern. */
function summary(part: ToolPart): string {
  const state = part.state;
  if ("title" in state && state.title) return state.title;
  const input = (state.input ?? {}) as Record<string, unknown>;
  for (const key of ["command", "file_path", "path", "pattern", "url", "query", "description", "prompt"]) {
    const value = input[key];
    if (typeof value === "string") return value.split("\n")[0] ?? "";
  }
  return "";
}

function inputOf(part: ToolPart): Record<string, unknown> {
  return (part.state.input ?? {}) as Record<string, unknown>;
}

/** The diff a file tool made, from its input (Edit's strings, Write's content against the checkpoint before it). */
function FileChange({ part, before }: { part: ToolPart; before?: { before: string | null; partial: boolean } }) {
  const input = inputOf(part);
  const path = String(input.file_path ?? input.notebook_path ?? "");
  if (part.tool === "Edit" && typeof input.old_string === "string" && typeof input.new_string === "string")
    return <DiffView path={path} before={input.old_string} after={input.new_string} note="(the edited text)" />;
  if (part.tool === "MultiEdit" && Array.isArray(input.edits))
    return (
      <>
        {(input.edits as { old_string?: string; new_string?: string }[]).map((edit, index) => (
          <DiffView
            key={index}
            path={path}
            before={edit.old_string ?? ""}
            after={edit.new_string ?? ""}
            note={`(edit ${index + 1})`}
          />
        ))}
      </>
    );
  if (part.tool === "Write" && typeof input.content === "string") {
    if (!before)
      return <DiffView path={path} before="" after={input.content} note="(no checkpoint: all shown as new)" />;
    const note =
      before.before === null ? "(new file)" : before.partial ? "(the file before was cut or not text)" : undefined;
    return <DiffView path={path} before={before.before ?? ""} after={input.content} {...(note && { note })} />;
  }
  return null;
}

const FILE_TOOLS = new Set(["Edit", "MultiEdit", "Write"]);

/** One tool call: a line with its state, opening to its input, output, diff, permission decision and hooks. */
export function ToolCall({
  part,
  notes,
  before,
  children,
}: {
  part: ToolPart;
  notes: CallNotes | undefined;
  before?: { before: string | null; partial: boolean };
  children?: preact.ComponentChildren;
}) {
  const [open, setOpen] = useState(false);
  const state = part.state;
  const took = "endedAt" in state ? state.endedAt - state.startedAt : undefined;
  const denied = notes?.denial !== undefined;
  const status = denied ? "denied" : state.status;
  return (
    <div class={`tool ${status}`} data-testid="tool-call" data-tool={part.tool}>
      <div class="tool-line" data-nav data-open onClick={() => setOpen(!open)} role="button" aria-expanded={open}>
        <span class={`badge ${status}`}>{status}</span>
        <span class="tool-name">{part.tool}</span>
        <span class="tool-summary">{summary(part)}</span>
        {took !== undefined && <span class="muted">{duration(took)}</span>}
        {(notes?.hooks.length ?? 0) > 0 && <span class="badge hook">hook</span>}
        {(notes?.violations.length ?? 0) > 0 && <span class="badge error">sandbox</span>}
      </div>
      {denied && (
        <div class="denial" data-testid="denial">
          permission denied: {notes?.denial}
        </div>
      )}
      {children}
      {open && (
        <div class="tool-body">
          {"permission" in state && state.permission && (
            <div class="permission" data-testid="permission">
              allowed: {state.permission}
            </div>
          )}
          <h4>input</h4>
          <Clipped text={JSON.stringify(state.input, null, 2)} max={4000} />
          {FILE_TOOLS.has(part.tool) && state.status !== "error" && !denied && (
            <FileChange part={part} {...(before && { before })} />
          )}
          {state.status === "completed" && (
            <>
              <h4>output</h4>
              <Clipped text={state.output} testId="tool-output" />
            </>
          )}
          {state.status === "error" && (
            <>
              <h4>error</h4>
              <Clipped text={state.error} />
            </>
          )}
          {notes?.hooks.map((hook) => (
            <div class={`hook-note ${String(hook.outcome)}`} key={hook.uuid}>
              hook {String(hook.hook_event)} <code>{String(hook.hook_name)}</code>: {String(hook.outcome)}
              {hook.output ? ` — ${String(hook.output)}` : ""}
            </div>
          ))}
          {notes?.violations.map((violation, index) => (
            <div class="violation" key={index}>
              sandbox blocked {violation.kind} {violation.target}: {violation.message}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
