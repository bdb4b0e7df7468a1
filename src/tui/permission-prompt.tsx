import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import type { PermissionRequest } from "./agent-session.js";
import { suggestedRules } from "./allow-always.js";
import { PASTE_END, PASTE_START } from "./paste.js";
import { describeInput } from "./tool-summary.js";

/** What the person chose: once, always (the rules to persist), or no with a message for the model. */
export type PermissionChoice =
  { kind: "once" } | { kind: "always"; rules: string[] } | { kind: "deny"; message: string };

/**
 * The question of a call that needs approval, inline under the transcript: 1 allow once,
 * 2 allow always for this project (shown with the rule it writes), 3 deny and tell the model
 * why (typed on the spot). Up/Down and Enter choose too; Esc denies.
 */
export function PermissionPrompt({
  request,
  cwd,
  onChoice,
  onCtrlC,
}: {
  request: PermissionRequest;
  cwd: string;
  onChoice: (choice: PermissionChoice) => void;
  /** Ctrl+C keeps its meaning while the question has the keyboard (interrupt, then quit). */
  onCtrlC: () => void;
}) {
  const rules = suggestedRules(request.suggestions);
  const options = [
    "Yes, once",
    rules.length > 0
      ? `Yes, and always allow ${rules.join(", ")} in this project`
      : "Yes, and allow this kind of call for the rest of the session",
    "No, and tell the model what to do instead",
  ];
  const [selected, setSelectedState] = useState(0);
  const [message, setMessageState] = useState<string | undefined>(undefined);
  // Keys can come faster than React renders: each one reads the latest values, not the last render's.
  const latest = useRef({ selected: 0, message: undefined as string | undefined, answered: false });
  const setSelected = (value: number) => {
    latest.current.selected = value;
    setSelectedState(value);
  };
  const setMessage = (value: string) => {
    latest.current.message = value;
    setMessageState(value);
  };
  const answer = (choice: PermissionChoice) => {
    if (latest.current.answered) return;
    latest.current.answered = true;
    onChoice(choice);
  };

  const choose = (index: number) => {
    if (index === 0) answer({ kind: "once" });
    else if (index === 1) answer({ kind: "always", rules });
    else setMessage("");
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") return onCtrlC();
    const { selected, message } = latest.current;
    if (message !== undefined) {
      if (key.return) answer({ kind: "deny", message: message.trim() || "The person denied this call." });
      else if (key.escape) answer({ kind: "deny", message: "The person denied this call." });
      else if (key.backspace || key.delete) setMessage(message.slice(0, -1));
      else if (input === PASTE_START || input === PASTE_END) return;
      else if (!key.ctrl && !key.meta && input) setMessage(message + input.replace(/[\r\n]+/g, " "));
      return;
    }
    if (key.escape) answer({ kind: "deny", message: "The person denied this call." });
    else if (key.upArrow) setSelected((selected + options.length - 1) % options.length);
    else if (key.downArrow) setSelected((selected + 1) % options.length);
    else if (key.return) choose(selected);
    else if (["1", "2", "3"].includes(input)) choose(Number(input) - 1);
  });

  return (
    <Box flexDirection="column" borderStyle="round" borderColor="yellow" paddingX={1}>
      <Text>
        <Text bold>{request.toolName}</Text> {describeInput(request.toolName, request.input, cwd)}
      </Text>
      <Text dimColor>{request.reason}</Text>
      <Text>Allow this call?</Text>
      {options.map((option, index) => (
        <Text key={index} color={index === selected ? "cyan" : undefined}>
          {index === selected ? "❯" : " "} {index + 1}. {option}
        </Text>
      ))}
      {message !== undefined ? (
        <Text>
          Tell the model: {message}
          <Text inverse> </Text>
        </Text>
      ) : null}
    </Box>
  );
}
