import { Box, type Key, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { PASTE_END, PASTE_START } from "./paste.js";
import { type PickerKey, type PickerQuestion, type PickerState, pickerKey, startPicker } from "./question-picker.js";

/** The Ink key as one the picker acts on, or undefined for a key it ignores. */
function pickerKeyOf(input: string, key: Key): PickerKey | undefined {
  if (key.upArrow) return { kind: "up" };
  if (key.downArrow) return { kind: "down" };
  if (key.return) return { kind: "enter" };
  if (key.backspace || key.delete) return { kind: "backspace" };
  if (input === PASTE_START || input === PASTE_END) return undefined;
  if (key.ctrl || key.meta || key.tab || key.escape || !input) return undefined;
  if (input === " ") return { kind: "space" };
  if (/^[1-9]$/.test(input)) return { kind: "digit", digit: Number(input) };
  return { kind: "text", text: input };
}

/**
 * AskUserQuestion's picker, in the permission question's place: one question at a time with
 * its header, options and their descriptions. Up/Down move, Enter (or an option's number)
 * answers; in a multi-select Space ticks options and Enter sends the ticked ones; typing
 * answers in the person's own words. Esc declines every question (the model is told).
 */
export function AskUserQuestionPrompt({
  questions,
  onAnswer,
  onCtrlC,
}: {
  questions: PickerQuestion[];
  /** The answers keyed by question text, or undefined when the person declined. */
  onAnswer: (answers: Record<string, string> | undefined) => void;
  onCtrlC: () => void;
}) {
  const [state, setState] = useState<PickerState>(startPicker);
  // Keys can come faster than React renders: each one reads the latest state.
  const latest = useRef({ state: startPicker(), answered: false });
  const answer = (answers: Record<string, string> | undefined) => {
    if (latest.current.answered) return;
    latest.current.answered = true;
    onAnswer(answers);
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") return onCtrlC();
    if (key.escape) return answer(undefined);
    const picked = pickerKeyOf(input, key);
    if (!picked) return;
    const step = pickerKey(questions, latest.current.state, picked);
    if ("done" in step) return answer(step.done);
    latest.current.state = step.state;
    setState(step.state);
  });

  const current = questions[state.index];
  if (!current) return null;
  const typing = state.text !== "";
  const progress = questions.length > 1 ? ` (${state.index + 1}/${questions.length})` : "";
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text>
        {current.header ? <Text inverse> {current.header} </Text> : null}
        {progress}
      </Text>
      <Text bold>{current.question}</Text>
      {current.options.map((option, index) => {
        const here = !typing && index === state.cursor;
        const box = current.multiSelect ? (state.ticked.has(index) ? "[x] " : "[ ] ") : "";
        return (
          <Box key={index} flexDirection="column">
            <Text color={here ? "cyan" : undefined}>
              {here ? "❯" : " "} {index + 1}. {box}
              {option.label}
            </Text>
            {option.description ? <Text dimColor>{`      ${option.description}`}</Text> : null}
          </Box>
        );
      })}
      <Text>
        Or type an answer: {state.text}
        <Text inverse> </Text>
      </Text>
      <Text dimColor>
        {current.multiSelect ? "Space ticks · Enter sends the ticked options" : "Enter picks"} · Esc declines
      </Text>
    </Box>
  );
}
