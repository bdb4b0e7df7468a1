import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { isJSONRPCErrorResponse, isJSONRPCResultResponse, type RequestId } from "@modelcontextprotocol/sdk/types.js";

/**
 * The calls whose answer the client is still owed. Shutting down aborts the calls, then waits
 * here until each answer has been handed to the transport, so the client hears how each call
 * ended instead of losing the connection mid-call. A call the client cancelled is owed
 * nothing (MCP sends no answer to it), nor is any once the transport has closed.
 */
export class OwedAnswers {
  readonly #owed = new Map<RequestId, { done: Promise<void>; settle: () => void }>();

  /** Sends through `transport` mark answers as given. Call before the server connects to it. */
  watch(transport: Transport): void {
    const send = transport.send.bind(transport);
    transport.send = async (message, options) => {
      try {
        await send(message, options);
      } finally {
        const answer = isJSONRPCResultResponse(message) || isJSONRPCErrorResponse(message) ? message.id : undefined;
        if (answer !== undefined) this.#owed.get(answer)?.settle();
      }
    };
  }

  /** A request came in; `cancelled` aborts when the client withdraws it. */
  add(id: RequestId, cancelled: AbortSignal): void {
    let settle = () => {};
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    this.#owed.set(id, { done, settle });
    void done.then(() => this.#owed.delete(id));
    if (cancelled.aborted) settle();
    else cancelled.addEventListener("abort", settle, { once: true });
  }

  /** Resolves once every answer owed now has been given (or is no longer owed). */
  async given(): Promise<void> {
    await Promise.all([...this.#owed.values()].map((answer) => answer.done));
  }

  /** The transport closed: nothing more can be given. */
  forgive(): void {
    for (const answer of this.#owed.values()) answer.settle();
  }
}
