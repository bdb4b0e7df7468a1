import { Box, Text } from "ink";
import type { Suggestion } from "./completion.js";

/** The completions under the prompt box: the selected one marked; Tab takes it. */
export function SuggestionList({ suggestions, selected }: { suggestions: readonly Suggestion[]; selected: number }) {
  if (suggestions.length === 0) return null;
  return (
    <Box flexDirection="column" paddingX={2}>
      {suggestions.map((suggestion, index) => (
        <Text key={suggestion.value} color={index === selected ? "cyan" : undefined} wrap="truncate-end">
          {index === selected ? "❯ " : "  "}
          {suggestion.label}
          {suggestion.detail ? <Text dimColor> {suggestion.detail}</Text> : null}
        </Text>
      ))}
    </Box>
  );
}
