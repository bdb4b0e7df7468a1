import { useState } from "preact/hooks";
import { fetchStepDiff } from "./api.js";

interface PatchFile {
  path: string;
  lines: { kind: "add" | "del" | "same" | "gap"; text: string }[];
}

/** The files of a `git diff`'s output, each with its lines (hunk headers as gaps). */
export function parsePatch(patch: string): PatchFile[] {
  const files: PatchFile[] = [];
  for (const chunk of patch.split(/^diff --git /m).slice(1)) {
    const lines = chunk.split("\n");
    const header = lines[0] ?? "";
    const plus = lines.find((line) => line.startsWith("+++ "));
    const minus = lines.find((line) => line.startsWith("--- "));
    const named = plus && plus !== "+++ /dev/null" ? plus.slice(6) : minus ? minus.slice(6) : header.split(" b/")[1];
    const file: PatchFile = { path: named ?? header, lines: [] };
    let inHunk = false;
    for (const line of lines.slice(1)) {
      if (line.startsWith("@@")) {
        inHunk = true;
        file.lines.push({ kind: "gap", text: line });
      } else if (!inHunk) continue;
      else if (line.startsWith("+")) file.lines.push({ kind: "add", text: line.slice(1) });
      else if (line.startsWith("-")) file.lines.push({ kind: "del", text: line.slice(1) });
      else if (line.startsWith(" ")) file.lines.push({ kind: "same", text: line.slice(1) });
    }
    if (file.lines.length === 0) file.lines.push({ kind: "gap", text: "binary, or only its mode changed" });
    files.push(file);
  }
  return files;
}

const SIGN = { same: " ", add: "+", del: "-", gap: "" };

/** What a step changed in the files (from the `snapshots` option's parts), loaded when asked for. */
export function StepDiff({ sessionId, from, to }: { sessionId: string; from: string; to: string }) {
  const [state, setState] = useState<{ files?: PatchFile[]; error?: string; open: boolean }>({ open: false });
  const toggle = () => {
    if (state.open) return setState({ ...state, open: false });
    setState({ ...state, open: true });
    if (!state.files)
      fetchStepDiff(sessionId, from, to)
        .then((patch) => setState({ files: parsePatch(patch), open: true }))
        .catch(() => setState({ error: "the snapshots are not on this machine", open: true }));
  };
  return (
    <div class="step-diff" data-testid="step-diff">
      <button type="button" class="link" data-nav data-open onClick={toggle}>
        {state.open ? "hide" : "files this step changed"}
      </button>
      {state.open && state.error && <div class="muted">{state.error}</div>}
      {state.open && state.files?.length === 0 && <div class="muted">no file changed</div>}
      {state.open &&
        state.files?.map((file) => (
          <div class="diff" key={file.path}>
            <div class="diff-head">
              <span class="path">{file.path}</span>
            </div>
            <table class="unified">
              <tbody>
                {file.lines.map((line, index) => (
                  <tr key={index} class={line.kind}>
                    <td class="code">
                      <span class="sign">{SIGN[line.kind]}</span>
                      {line.text}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ))}
    </div>
  );
}
