import { Box, Text, useInput } from "ink";
import { useRef, useState } from "react";
import type { ElicitationRequest, ElicitationResult } from "../mcp/index.js";
import {
  acceptedResult,
  cycleChoice,
  type FieldValue,
  type FormField,
  formFields,
  initialText,
  parseField,
} from "./elicitation-form.js";
import { editLine } from "./line-input.js";

interface FormState {
  /** Undefined while the person chooses to answer, decline or cancel; then the field being filled. */
  field: number | undefined;
  selected: number;
  text: string;
  error: string | undefined;
  values: Map<string, FieldValue | undefined>;
  answered: boolean;
}

/**
 * An MCP server's request for input, in the prompt box's place: which server asks what, then
 * 1 answer (fill its form field by field: type, or Up/Down through a field's choices; Enter
 * goes on), 2 decline, 3 cancel. A URL request shows the page to open. Esc cancels.
 */
export function ElicitationPrompt({
  request,
  onAnswer,
  onCtrlC,
}: {
  request: ElicitationRequest;
  onAnswer: (result: ElicitationResult) => void;
  onCtrlC: () => void;
}) {
  const fields = useRef(formFields(request.requestedSchema)).current;
  const url = request.mode === "url";
  const choices = [url ? "Done, I opened it" : "Answer", "Decline", "Cancel"];
  const start: FormState = {
    field: undefined,
    selected: 0,
    text: "",
    error: undefined,
    values: new Map(),
    answered: false,
  };
  const [state, setRendered] = useState(start);
  // Keys can come faster than React renders: each one edits the latest state.
  const latest = useRef(start);
  const update = (next: Partial<FormState>) => {
    latest.current = { ...latest.current, ...next };
    setRendered(latest.current);
  };
  const answer = (result: ElicitationResult) => {
    if (latest.current.answered) return;
    update({ answered: true });
    onAnswer(result);
  };
  const openField = (index: number) => {
    const field = fields[index];
    if (!field) return answer(acceptedResult(fields, latest.current.values));
    update({ field: index, text: initialText(field), error: undefined });
  };
  const choose = (index: number) => {
    if (index === 0) return url ? answer({ action: "accept" }) : openField(0);
    answer({ action: index === 1 ? "decline" : "cancel" });
  };

  useInput((input, key) => {
    if (key.ctrl && input === "c") return onCtrlC();
    if (key.escape) return answer({ action: "cancel" });
    const current = latest.current;
    const field = current.field === undefined ? undefined : fields[current.field];
    if (current.field === undefined || !field) {
      if (key.upArrow) update({ selected: (current.selected + choices.length - 1) % choices.length });
      else if (key.downArrow) update({ selected: (current.selected + 1) % choices.length });
      else if (key.return) choose(current.selected);
      else if (["1", "2", "3"].includes(input)) choose(Number(input) - 1);
      return;
    }
    if (key.return) {
      const parsed = parseField(field, current.text);
      if (!parsed.ok) return update({ error: parsed.error });
      current.values.set(field.key, parsed.value);
      return openField(current.field + 1);
    }
    if (key.upArrow || key.downArrow) return update({ text: cycleChoice(field, current.text, key.upArrow ? -1 : 1) });
    const edited = editLine(current.text, input, key);
    if (edited !== undefined) update({ text: edited, error: undefined });
  });

  const field = state.field === undefined ? undefined : fields[state.field];
  return (
    <Box flexDirection="column" borderStyle="round" borderColor="blue" paddingX={1}>
      <Text>
        MCP server <Text bold>{request.serverName}</Text> asks: {request.message}
      </Text>
      {url ? <Text>Open {request.url ?? "(no URL given)"} to answer.</Text> : null}
      {field ? (
        <FieldInput field={field} position={`${(state.field ?? 0) + 1}/${fields.length}`} state={state} />
      ) : (
        choices.map((choice, index) => (
          <Text key={index} color={index === state.selected ? "cyan" : undefined}>
            {index === state.selected ? "❯" : " "} {index + 1}. {choice}
          </Text>
        ))
      )}
      <Text dimColor>{field ? "Enter: next · Esc cancels" : "Enter chooses · Esc cancels"}</Text>
    </Box>
  );
}

function FieldInput({ field, position, state }: { field: FormField; position: string; state: FormState }) {
  const notes = [
    field.description,
    field.choices && `${field.type === "array" ? "some of" : "one of"}: ${field.choices.join(", ")}`,
    field.type === "array" && !field.choices ? "comma-separated" : undefined,
    field.required ? "required" : "optional",
  ].filter(Boolean);
  return (
    <Box flexDirection="column">
      <Text>
        <Text dimColor>{position}</Text> <Text bold>{field.title}</Text> <Text dimColor>({notes.join("; ")})</Text>
      </Text>
      <Text>
        ❯ {state.text}
        <Text inverse> </Text>
      </Text>
      {state.error ? <Text color="red">{state.error}</Text> : null}
    </Box>
  );
}
