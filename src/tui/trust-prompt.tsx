import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { describeOffer, type TrustOffer } from "./trust-offer.js";

/** The person's answer: trust the folder (recorded), for this session only, or not. */
export type TrustAnswer = "trust" | "session" | "no";

/** A folder that is not trusted, asking the person whether to trust it. */
export interface TrustQuestion {
  /** Tells one question from the next. */
  id: number;
  offer: TrustOffer;
  /**
   * Asked after "always allow": the rules just saved in `file`, which the next session would
   * ignore. Then the answers are trust or not (the rules apply to this session either way).
   */
  saved?: { rules: string[]; file: string };
  answer(choice: TrustAnswer): void;
}

/** The answers offered, in order: at start three, after "always allow" two. */
export function trustChoices(question: Pick<TrustQuestion, "saved">): Array<{ label: string; answer: TrustAnswer }> {
  if (question.saved) {
    return [
      { label: "Yes, trust this folder: the rule sticks", answer: "trust" },
      { label: "No, allow it for this session only", answer: "no" },
    ];
  }
  return [
    { label: "Yes, trust this folder", answer: "trust" },
    { label: "Yes, for this session only", answer: "session" },
    { label: "No, ignore what it asks for (its deny and ask rules still apply)", answer: "no" },
  ];
}

/**
 * Whether to trust the folder, in the prompt box's place: the folder, what its files ask for
 * (allow rules, hooks, MCP servers, agents), and the answers. Digits, or Up/Down and Enter,
 * choose; Esc is no. Nothing in the folder can answer it: only keys the person presses do.
 */
export function TrustPrompt({
  question,
  onAnswer,
  onCtrlC,
}: {
  question: TrustQuestion;
  onAnswer: (answer: TrustAnswer) => void;
  onCtrlC: () => void;
}) {
  const choices = trustChoices(question);
  const [selected, setSelectedState] = useState(0);
  // Keys can come faster than React renders: each one reads the latest values.
  const latest = useRef({ selected: 0, answered: false });
  const setSelected = (value: number) => {
    latest.current.selected = value;
    setSelectedState(value);
  };
  const answer = (choice: TrustAnswer) => {
    if (latest.current.answered) return;
    latest.current.answered = true;
    onAnswer(choice);
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") return onCtrlC();
    const { selected } = latest.current;
    const picked = /^[1-9]$/.test(input) ? choices[Number(input) - 1] : undefined;
    if (key.escape) answer("no");
    else if (key.upArrow) setSelected((selected + choices.length - 1) % choices.length);
    else if (key.downArrow) setSelected((selected + 1) % choices.length);
    else if (key.return) answer(choices[selected]?.answer ?? "no");
    else if (picked) answer(picked.answer);
  });

  const { offer, saved } = question;
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text bold>Do you trust the files in this folder?</Text>
      <Text>{offer.folder}</Text>
      {saved ? (
        <Text>
          {saved.rules.join(", ")} is saved in {saved.file}, but this folder is not trusted: the next session would
          ignore it.
        </Text>
      ) : null}
      <Text dimColor>
        {saved
          ? "Trusting it applies all that its files ask for:"
          : "Its files ask for what only a trusted folder gets:"}
      </Text>
      {describeOffer(offer).map((line, index) => (
        <Text key={index}> {line}</Text>
      ))}
      <Text dimColor>
        Hooks and MCP servers run commands on this machine: trust only a folder whose files you know.
      </Text>
      {choices.map((choice, index) => (
        <Text key={choice.answer} color={index === selected ? "cyan" : undefined}>
          {index === selected ? "❯" : " "} {index + 1}. {choice.label}
        </Text>
      ))}
    </Box>
  );
}
