import { diffLines } from "diff";
import { useState } from "preact/hooks";

interface Row {
  kind: "same" | "add" | "del" | "gap";
  text: string;
  oldNo?: number;
  newNo?: number;
}

/** Lines around each change kept; longer unchanged runs fold to a gap row. */
const CONTEXT = 3;

/** The rows of a unified diff from `before` to `after`, unchanged runs folded. */
export function diffRows(before: string, after: string): Row[] {
  const rows: Row[] = [];
  let oldNo = 1;
  let newNo = 1;
  for (const change of diffLines(before, after)) {
    const lines = change.value.replace(/\n$/, "").split("\n");
    for (const text of lines) {
      if (change.added) rows.push({ kind: "add", text, newNo: newNo++ });
      else if (change.removed) rows.push({ kind: "del", text, oldNo: oldNo++ });
      else rows.push({ kind: "same", text, oldNo: oldNo++, newNo: newNo++ });
    }
  }
  return fold(rows);
}

function fold(rows: Row[]): Row[] {
  const near = rows.map(() => false);
  rows.forEach((row, index) => {
    if (row.kind === "same") return;
    for (let k = Math.max(0, index - CONTEXT); k <= Math.min(rows.length - 1, index + CONTEXT); k++) near[k] = true;
  });
  const out: Row[] = [];
  let hidden = 0;
  rows.forEach((row, index) => {
    if (near[index]) {
      if (hidden > 0) out.push({ kind: "gap", text: `${hidden} unchanged line${hidden === 1 ? "" : "s"}` });
      hidden = 0;
      out.push(row);
    } else hidden++;
  });
  if (hidden > 0) out.push({ kind: "gap", text: `${hidden} unchanged line${hidden === 1 ? "" : "s"}` });
  return out;
}

/** Pairs deletions with the additions after them, for the side-by-side view. */
function sideBySide(rows: Row[]): [Row | undefined, Row | undefined][] {
  const pairs: [Row | undefined, Row | undefined][] = [];
  for (let i = 0; i < rows.length;) {
    const row = rows[i]!;
    if (row.kind !== "del") {
      pairs.push(row.kind === "add" ? [undefined, row] : [row, row]);
      i++;
      continue;
    }
    const dels: Row[] = [];
    const adds: Row[] = [];
    while (rows[i]?.kind === "del") dels.push(rows[i++]!);
    while (rows[i]?.kind === "add") adds.push(rows[i++]!);
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) pairs.push([dels[k], adds[k]]);
  }
  return pairs;
}

const SIGN = { same: " ", add: "+", del: "-", gap: "" };

/** A file change: unified or side by side (the choice is remembered for the page). */
export function DiffView({
  path,
  before,
  after,
  note,
}: {
  path: string;
  before: string;
  after: string;
  note?: string;
}) {
  const [split, setSplit] = useState(localStorage.getItem("gyre-ui-diff") === "split");
  const rows = diffRows(before, after);
  const toggle = () => {
    localStorage.setItem("gyre-ui-diff", split ? "unified" : "split");
    setSplit(!split);
  };
  return (
    <div class="diff" data-testid="diff">
      <div class="diff-head">
        <span class="path">{path}</span>
        {note && <span class="muted"> {note}</span>}
        <button type="button" class="link" onClick={toggle}>
          {split ? "unified" : "side by side"}
        </button>
      </div>
      <table class={split ? "split" : "unified"}>
        <tbody>
          {split
            ? sideBySide(rows).map(([left, right], index) => (
                <tr key={index} class={left?.kind === "gap" ? "gap" : ""}>
                  <td class="no">{left?.oldNo}</td>
                  <td class={`code ${left && left !== right ? left.kind : left?.kind === "gap" ? "gap" : ""}`}>
                    {left?.text}
                  </td>
                  <td class="no">{right?.newNo}</td>
                  <td class={`code ${right && right !== left ? right.kind : ""}`}>
                    {right?.kind === "gap" ? "" : right?.text}
                  </td>
                </tr>
              ))
            : rows.map((row, index) => (
                <tr key={index} class={row.kind}>
                  <td class="no">{row.oldNo}</td>
                  <td class="no">{row.newNo}</td>
                  <td class="code">
                    <span class="sign">{SIGN[row.kind]}</span>
                    {row.text}
                  </td>
                </tr>
              ))}
        </tbody>
      </table>
    </div>
  );
}
