import { Box, Static, Text } from "ink";
import { useEffect, useState, useSyncExternalStore } from "react";
import { Markdown } from "./markdown.js";
import { PermissionPrompt } from "./permission-prompt.js";
import { PromptBox } from "./prompt-box.js";
import { SessionPicker } from "./session-picker.js";
import { StatusLine } from "./status-line.js";
import { ToolLine } from "./tool-line.js";
import type { TranscriptItem } from "./transcript.js";
import type { TuiController } from "./tui-controller.js";

/**
 * The interactive agent's screen: settled items written once (Ink's Static, so a long
 * conversation is not redrawn), the live part (streaming text, running tools), the
 * permission question or the prompt box, and the status line.
 */
export function App({ controller, cwd }: { controller: TuiController; cwd: string }) {
  const { store } = controller;
  useSyncExternalStore(store.subscribe, store.version);
  // Children's effects run first: once this one has, the prompt box reads keys in raw mode,
  // and the status line says the prompt is ready (typing earlier could reach a cooked terminal).
  const [ready, setReady] = useState(false);
  useEffect(() => setReady(true), []);
  const items = store.transcript.items;
  const settled = store.transcript.settledCount();
  const permission = store.permission;
  const picker = permission ? undefined : store.picker;
  return (
    <Box flexDirection="column">
      <Static key={controller.generation} items={items.slice(0, settled)}>
        {(item) => <Item key={item.id} item={item} waitingId={undefined} />}
      </Static>
      {items.slice(settled).map((item) => (
        <Item key={item.id} item={item} waitingId={permission?.toolUseId} />
      ))}
      {permission ? (
        <PermissionPrompt
          key={permission.toolUseId}
          request={permission}
          cwd={cwd}
          onChoice={(choice) => void controller.answerPermission(choice)}
          onCtrlC={() => controller.ctrlC()}
        />
      ) : null}
      {picker ? (
        <SessionPicker
          sessions={picker}
          onPick={(session) => void controller.resume(session.id)}
          onCancel={() => controller.cancelPicker()}
        />
      ) : null}
      <PromptBox
        active={!permission && !picker}
        keys={{
          onSubmit: (text) => controller.submit(text),
          onInterrupt: () => controller.interrupt(),
          onCtrlC: () => controller.ctrlC(),
          onQuit: () => void controller.quit(),
          onCycleMode: () => controller.cycleMode(),
          history: () => controller.history,
          suggest: (token) => controller.suggest(token),
        }}
      />
      <StatusLine status={store.status} hint={ready ? controller.hint : "starting…"} />
    </Box>
  );
}

function Item({ item, waitingId }: { item: TranscriptItem; waitingId: string | undefined }) {
  switch (item.kind) {
    case "user":
      return (
        <Box marginTop={1}>
          <Text color="cyan">❯ </Text>
          <Text>{item.text}</Text>
        </Box>
      );
    case "assistant":
      return (
        <Box marginTop={1}>
          <Text color="green">● </Text>
          <Markdown text={item.text} />
        </Box>
      );
    case "tool":
      return <ToolLine item={item} waiting={item.id === waitingId} />;
    case "notice":
      return (
        <Box marginTop={1}>
          <Text color={item.tone === "error" ? "red" : "gray"}>{item.text}</Text>
        </Box>
      );
  }
}
