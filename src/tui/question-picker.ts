/** One question of AskUserQuestion as the picker reads it (the tool's input, loosely typed). */
export interface PickerQuestion {
  question: string;
  header: string;
  options: Array<{ label: string; description: string }>;
  multiSelect: boolean;
}

/**
 * Where the person is in AskUserQuestion's picker: which question, the option under the
 * cursor, the options ticked (multi-select), an answer being typed, and the answers so far.
 */
export interface PickerState {
  index: number;
  cursor: number;
  ticked: ReadonlySet<number>;
  text: string;
  /** Answers to the questions before `index`, keyed by question text. */
  answers: Readonly<Record<string, string>>;
}

/** A key the picker acts on (what Ink reports, reduced). */
export type PickerKey =
  | { kind: "up" | "down" | "space" | "enter" | "backspace" }
  | { kind: "digit"; digit: number }
  | { kind: "text"; text: string };

/** The picker's next state, or: every question answered (`done`), or nothing yet to submit. */
export type PickerStep = { state: PickerState } | { done: Record<string, string> };

export const startPicker = (): PickerState => ({ index: 0, cursor: 0, ticked: new Set(), text: "", answers: {} });

/** The questions AskUserQuestion's input holds, or none when it is not of that shape. */
export function pickerQuestions(input: Record<string, unknown>): PickerQuestion[] {
  const questions = Array.isArray(input.questions) ? (input.questions as unknown[]) : [];
  return questions.flatMap((value) => {
    const item = (typeof value === "object" && value !== null ? value : {}) as Record<string, unknown>;
    if (typeof item.question !== "string" || !Array.isArray(item.options)) return [];
    const options = (item.options as Array<Record<string, unknown>>).map((option) => ({
      label: String(option?.label ?? ""),
      description: typeof option?.description === "string" ? option.description : "",
    }));
    const header = typeof item.header === "string" ? item.header : "";
    return [{ question: item.question, header, options, multiSelect: item.multiSelect === true }];
  });
}

/**
 * One key on the current question. Up/Down move the cursor; a digit picks that option (ticks
 * it, in a multi-select); Space ticks the cursor's option in a multi-select; typing writes an
 * answer of the person's own, which wins; Enter answers the question — the typed text, the
 * ticked options joined with ", " (the cursor's when none is ticked), or the cursor's option —
 * and moves to the next, or finishes.
 */
export function pickerKey(questions: readonly PickerQuestion[], state: PickerState, key: PickerKey): PickerStep {
  const current = questions[state.index];
  if (!current) return { done: { ...state.answers } };
  const count = current.options.length;
  const typing = state.text !== "";
  switch (key.kind) {
    case "up":
      return { state: { ...state, cursor: (state.cursor + count - 1) % count } };
    case "down":
      return { state: { ...state, cursor: (state.cursor + 1) % count } };
    case "backspace":
      return { state: { ...state, text: state.text.slice(0, -1) } };
    case "text":
      return { state: { ...state, text: state.text + key.text.replace(/[\r\n]+/g, " ") } };
    case "space":
      if (typing || !current.multiSelect) return { state: { ...state, text: typing ? `${state.text} ` : state.text } };
      return { state: { ...state, ticked: toggled(state.ticked, state.cursor) } };
    case "digit": {
      if (typing) return { state: { ...state, text: state.text + String(key.digit) } };
      const picked = key.digit - 1;
      if (picked < 0 || picked >= count) return { state };
      if (current.multiSelect) return { state: { ...state, cursor: picked, ticked: toggled(state.ticked, picked) } };
      return answered(questions, state, current.options[picked]!.label);
    }
    case "enter": {
      const typed = state.text.trim();
      if (typed !== "") return answered(questions, state, typed);
      const chosen =
        current.multiSelect && state.ticked.size > 0 ? [...state.ticked].sort((a, b) => a - b) : [state.cursor];
      return answered(questions, state, chosen.map((index) => current.options[index]!.label).join(", "));
    }
  }
}

function answered(questions: readonly PickerQuestion[], state: PickerState, answer: string): PickerStep {
  const answers = { ...state.answers, [questions[state.index]!.question]: answer };
  if (state.index + 1 >= questions.length) return { done: answers };
  return { state: { ...startPicker(), index: state.index + 1, answers } };
}

function toggled(set: ReadonlySet<number>, index: number): Set<number> {
  const next = new Set(set);
  if (next.has(index)) next.delete(index);
  else next.add(index);
  return next;
}
