import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import { editLine } from "./line-input.js";
import { Markdown } from "./markdown.js";

/** What the person chose for the model's plan: carry it out in a mode, or keep planning with feedback. */
export type PlanChoice =
  { kind: "approve"; mode: "acceptEdits" | "default" } | { kind: "keepPlanning"; feedback: string };

const OPTIONS = ["Yes, and auto-accept edits", "Yes, and ask before each edit", "No, keep planning"] as const;
const NO_FEEDBACK = "The user wants you to keep planning.";

/**
 * ExitPlanMode's question, in the permission question's place: the plan, then 1 approve and
 * auto-accept edits (acceptEdits), 2 approve and ask before edits (default), 3 keep planning
 * and tell the model what to change (typed on the spot). Up/Down and Enter choose too; Esc
 * keeps planning.
 */
export function PlanApprovalPrompt({
  plan,
  onChoice,
  onCtrlC,
}: {
  plan: string;
  onChoice: (choice: PlanChoice) => void;
  onCtrlC: () => void;
}) {
  const [selected, setSelectedState] = useState(0);
  const [feedback, setFeedbackState] = useState<string | undefined>(undefined);
  // Keys can come faster than React renders: each one reads the latest values.
  const latest = useRef({ selected: 0, feedback: undefined as string | undefined, answered: false });
  const setSelected = (value: number) => {
    latest.current.selected = value;
    setSelectedState(value);
  };
  const setFeedback = (value: string) => {
    latest.current.feedback = value;
    setFeedbackState(value);
  };
  const answer = (choice: PlanChoice) => {
    if (latest.current.answered) return;
    latest.current.answered = true;
    onChoice(choice);
  };
  const choose = (index: number) => {
    if (index === 0) answer({ kind: "approve", mode: "acceptEdits" });
    else if (index === 1) answer({ kind: "approve", mode: "default" });
    else setFeedback("");
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") return onCtrlC();
    const { selected, feedback } = latest.current;
    if (feedback !== undefined) {
      if (key.return) return answer({ kind: "keepPlanning", feedback: feedback.trim() || NO_FEEDBACK });
      if (key.escape) return answer({ kind: "keepPlanning", feedback: NO_FEEDBACK });
      const edited = editLine(feedback, input, key);
      if (edited !== undefined) setFeedback(edited);
      return;
    }
    if (key.escape) answer({ kind: "keepPlanning", feedback: NO_FEEDBACK });
    else if (key.upArrow) setSelected((selected + OPTIONS.length - 1) % OPTIONS.length);
    else if (key.downArrow) setSelected((selected + 1) % OPTIONS.length);
    else if (key.return) choose(selected);
    else if (["1", "2", "3"].includes(input)) choose(Number(input) - 1);
  });

  return (
    <Box flexDirection="column" borderStyle="round" borderColor="cyan" paddingX={1}>
      <Text bold>Here is the plan:</Text>
      <Box flexDirection="column" paddingLeft={1} marginBottom={1}>
        <Markdown text={plan} />
      </Box>
      <Text>Would you like to proceed?</Text>
      {OPTIONS.map((option, index) => (
        <Text key={index} color={index === selected ? "cyan" : undefined}>
          {index === selected ? "❯" : " "} {index + 1}. {option}
        </Text>
      ))}
      {feedback !== undefined ? (
        <Text>
          What should change: {feedback}
          <Text inverse> </Text>
        </Text>
      ) : null}
    </Box>
  );
}
