import { describe, expect, it } from "vitest";
import {
  type PickerKey,
  type PickerState,
  type PickerStep,
  pickerKey,
  pickerQuestions,
  startPicker,
} from "./question-picker.js";

const questions = pickerQuestions({
  questions: [
    {
      question: "Which library?",
      header: "Library",
      options: [
        { label: "date-fns", description: "small" },
        { label: "Luxon", description: "zones" },
      ],
      multiSelect: false,
    },
    {
      question: "Which formats?",
      header: "Formats",
      options: [
        { label: "ISO", description: "" },
        { label: "US", description: "" },
        { label: "EU", description: "" },
      ],
      multiSelect: true,
    },
  ],
});

/** Presses `keys` from the start; the answers once done, else the state reached. */
function press(...keys: PickerKey[]): PickerStep {
  let state: PickerState = startPicker();
  for (const key of keys) {
    const step = pickerKey(questions, state, key);
    if ("done" in step) return step;
    state = step.state;
  }
  return { state };
}

describe("AskUserQuestion's picker", () => {
  it("reads the tool's questions, and nothing from input of another shape", () => {
    expect(questions.map((q) => [q.header, q.multiSelect, q.options.length])).toEqual([
      ["Library", false, 2],
      ["Formats", true, 3],
    ]);
    expect(pickerQuestions({ questions: "no" })).toEqual([]);
  });

  it("answers a single choice with the cursor, and a multi-select with the ticked options in order", () => {
    const step = press(
      { kind: "down" },
      { kind: "enter" },
      { kind: "down" },
      { kind: "down" },
      { kind: "space" },
      { kind: "up" },
      { kind: "up" },
      { kind: "space" },
      { kind: "enter" },
    );
    expect(step).toEqual({ done: { "Which library?": "Luxon", "Which formats?": "ISO, EU" } });
  });

  it("takes a number as the pick, Space untick, and Enter with nothing ticked takes the cursor's option", () => {
    expect(
      press({ kind: "digit", digit: 1 }, { kind: "digit", digit: 2 }, { kind: "digit", digit: 2 }, { kind: "enter" }),
    ).toEqual({
      done: { "Which library?": "date-fns", "Which formats?": "US" },
    });
    expect(press({ kind: "digit", digit: 9 })).toMatchObject({ state: { index: 0 } });
  });

  it("takes an answer typed in the person's own words, spaces and digits included", () => {
    const typed = [..."moment 2"].map((ch): PickerKey =>
      ch === " "
        ? { kind: "space" }
        : /\d/.test(ch)
          ? { kind: "digit", digit: Number(ch) }
          : { kind: "text", text: ch },
    );
    const step = press(
      ...typed,
      { kind: "backspace" },
      { kind: "text", text: "3" },
      { kind: "enter" },
      { kind: "enter" },
    );
    expect(step).toEqual({ done: { "Which library?": "moment 3", "Which formats?": "ISO" } });
  });
});
