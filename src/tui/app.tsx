import { Box, Static } from "ink";
import { useEffect, useState, useSyncExternalStore } from "react";
import { AskUserQuestionPrompt } from "./ask-user-question-prompt.js";
import { ElicitationPrompt } from "./elicitation-prompt.js";
import { PermissionPrompt } from "./permission-prompt.js";
import { PlanApprovalPrompt } from "./plan-approval-prompt.js";
import { QuestionPrompt } from "./question-prompt.js";
import { PromptBox } from "./prompt-box.js";
import { pickerQuestions } from "./question-picker.js";
import { SessionPicker } from "./session-picker.js";
import { StatusLine } from "./status-line.js";
import { TodoPanel } from "./todo-list.js";
import { TranscriptItemView } from "./transcript-item.js";
import { TrustPrompt } from "./trust-prompt.js";
import type { TuiController } from "./tui-controller.js";
import { useViewKeys } from "./use-view-keys.js";
import { WaitingLine } from "./waiting-line.js";

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
  useViewKeys({ onToggleExpanded: () => controller.toggleExpanded(), onResize: () => controller.redraw() });
  const items = store.transcript.items;
  const settled = store.transcript.settledCount();
  // One thing has the keyboard at a time: whether to trust the folder, a permission question,
  // a server's, the model's, the picker, the prompt box.
  const trust = store.trust;
  const permission = trust ? undefined : store.permission;
  const expanded = store.expanded;
  const elicitation = trust || permission ? undefined : store.elicitation;
  const question = trust || permission || elicitation ? undefined : store.question;
  const picker = trust || permission || elicitation || question ? undefined : store.picker;
  // A turn runs and nothing of it moves on screen: the model has not answered yet.
  const waiting = store.status.busy && settled === items.length && !trust && !permission && !elicitation && !question;
  return (
    <Box flexDirection="column">
      <Static key={controller.generation} items={items.slice(0, settled)}>
        {(item) => <TranscriptItemView key={item.id} item={item} waitingId={undefined} expanded={expanded} />}
      </Static>
      {items.slice(settled).map((item) => (
        <TranscriptItemView key={item.id} item={item} waitingId={permission?.toolUseId} expanded={expanded} />
      ))}
      {waiting ? <WaitingLine /> : null}
      <TodoPanel todos={store.transcript.todos} busy={store.status.busy} />
      {trust ? (
        <TrustPrompt
          key={trust.id}
          question={trust}
          onAnswer={(answer) => trust.answer(answer)}
          onCtrlC={() => controller.ctrlC()}
        />
      ) : null}
      {permission?.toolName === "AskUserQuestion" ? (
        <AskUserQuestionPrompt
          key={permission.toolUseId}
          questions={pickerQuestions(permission.input)}
          onAnswer={(answers) => controller.answerQuestions(answers)}
          onCtrlC={() => controller.ctrlC()}
        />
      ) : permission?.toolName === "ExitPlanMode" ? (
        <PlanApprovalPrompt
          key={permission.toolUseId}
          plan={typeof permission.input.plan === "string" ? permission.input.plan : ""}
          onChoice={(choice) => controller.answerPlan(choice)}
          onCtrlC={() => controller.ctrlC()}
        />
      ) : permission ? (
        <PermissionPrompt
          key={permission.toolUseId}
          request={permission}
          cwd={cwd}
          onChoice={(choice) => void controller.answerPermission(choice)}
          onCtrlC={() => controller.ctrlC()}
        />
      ) : null}
      {elicitation ? (
        <ElicitationPrompt
          key={elicitation.id}
          request={elicitation.request}
          onAnswer={(result) => elicitation.answer(result)}
          onCtrlC={() => controller.ctrlC()}
        />
      ) : null}
      {question ? (
        <QuestionPrompt
          key={question.id}
          question={question}
          onAnswer={(answer) => controller.answerQuestion(answer)}
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
        active={!trust && !permission && !elicitation && !question && !picker}
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
