import { randomUUID } from "node:crypto";
import {
  API_MESSAGE_EXTRAS,
  apiBlock,
  apiStreamEvent,
  apiUsage,
  type APIAssistantMessage,
  type SDKAssistantMessage,
  type SDKMessage,
  type SDKPartialAssistantMessage,
  type SDKUserMessage,
  type UserContentBlock,
} from "../protocol/index.js";

type WithoutIds<T> = T extends SDKMessage ? Omit<T, "uuid" | "session_id"> : never;

/** Stamps messages with a fresh uuid (from `newUuid`, injectable for deterministic tests) and the session id. */
export class MessageStamp {
  constructor(
    readonly sessionId: string,
    private readonly newUuid: () => string = randomUUID,
  ) {}

  stamp<T extends WithoutIds<SDKMessage>>(message: T): T & { uuid: string; session_id: string } {
    return { ...message, uuid: this.newUuid(), session_id: this.sessionId };
  }

  /** A fresh id from the same source as the messages' uuids (for ids inside messages, such as `hook_id`). */
  newId(): string {
    return this.newUuid();
  }

  /** An assistant message, in the full shape of Anthropic's API (see protocol/api-shapes.ts). */
  assistant(message: APIAssistantMessage, extra: Partial<SDKAssistantMessage> = {}): SDKAssistantMessage {
    const full: APIAssistantMessage = {
      ...API_MESSAGE_EXTRAS,
      ...message,
      content: message.content.map(apiBlock),
      usage: apiUsage(message.usage),
    };
    return this.stamp({ type: "assistant", message: full, parent_tool_use_id: null, ...extra });
  }

  user(content: string | UserContentBlock[], extra: Partial<SDKUserMessage> = {}): SDKUserMessage {
    return this.stamp({
      type: "user",
      message: { role: "user", content },
      parent_tool_use_id: null,
      ...extra,
    });
  }

  streamEvent(event: SDKPartialAssistantMessage["event"]): SDKPartialAssistantMessage {
    return this.stamp({ type: "stream_event", event: apiStreamEvent(event), parent_tool_use_id: null });
  }
}
