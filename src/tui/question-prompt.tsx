import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { editLine } from "./line-input.js";

/** What the model asked with `ask_question`, waiting for the person. */
export interface PendingQuestion {
  /** Tells one question from the next (the model may ask the same twice). */
  id: number;
  question: string;
  options?: string[] | undefined;
}

/**
 * The model's question, in the prompt box's place: Up/Down and Enter pick one of its options,
 * or the person types an answer of their own (typed text wins). Esc answers nothing (the
 * controller tells the model so).
 */
export function QuestionPrompt({
  question,
  onAnswer,
  onCtrlC,
}: {
  question: PendingQuestion;
  /** The answer, or undefined when the person dismissed the question. */
  onAnswer: (answer: string | undefined) => void;
  onCtrlC: () => void;
}) {
  const options = question.options ?? [];
  const [selected, setSelectedState] = useState(0);
  const [text, setTextState] = useState("");
  // Keys can come faster than React renders: each one reads the latest values.
  const latest = useRef({ selected: 0, text: "", answered: false });
  const setSelected = (value: number) => {
    latest.current.selected = value;
    setSelectedState(value);
  };
  const setText = (value: string) => {
    latest.current.text = value;
    setTextState(value);
  };
  const answer = (value: string | undefined) => {
    if (latest.current.answered) return;
    latest.current.answered = true;
    onAnswer(value);
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") return onCtrlC();
    const { selected, text } = latest.current;
    if (key.escape) return answer(undefined);
    if (key.return) {
      const typed = text.trim();
      if (typed !== "") answer(typed);
      else if (options[selected] !== undefined) answer(options[selected]);
      return;
    }
    if (options.length > 0 && key.upArrow) return setSelected((selected + options.length - 1) % options.length);
    if (options.length > 0 && key.downArrow) return setSelected((selected + 1) % options.length);
    const edited = editLine(text, input, key);
    if (edited !== undefined) setText(edited);
  });

  const typing = text !== "";
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="magenta" paddingX={1}>
      <Text bold>{question.question}</Text>
      {options.map((option, index) => (
        <Text key={index} color={!typing && index === selected ? "cyan" : undefined}>
          {!typing && index === selected ? "❯" : " "} {index + 1}. {option}
        </Text>
      ))}
      <Text>
        {options.length > 0 ? "Or type an answer: " : "Your answer: "}
        {text}
        <Text inverse> </Text>
      </Text>
      <Text dimColor>Enter answers · Esc leaves it unanswered</Text>
    </Box>
  );
}
