import type { Hono } from "hono";
import type { AuthVariables } from "./auth.js";
import {
  asConversationItem,
  checkNewItemIds,
  type ConversationItem,
  type ConversationObject,
  type ConversationStore,
  conversationNotFound,
  type StoredConversation,
} from "./conversations.js";
import { RequestError } from "./errors.js";
import { inputItems } from "./input-items.js";
import { listInputItems } from "./list-items.js";
import { parseBody } from "./parse-request.js";
import {
  AddConversationItemsRequest,
  CreateConversationRequest,
  type InputItem,
  UpdateConversationRequest,
} from "./request-schema.js";
import type { StoredInputItem } from "./response-object.js";

/**
 * OpenAI's Conversations API: `/v1/conversations` and its items. Each API key sees only its own
 * conversations; another key's is a 404, as if it did not exist.
 */
export function conversationRoutes(
  app: Hono<{ Variables: AuthVariables }>,
  conversations: ConversationStore,
  body: (request: Request) => Promise<unknown>,
  newId: (prefix: string) => string,
): void {
  const owned = async (id: string, owner: string): Promise<StoredConversation> => {
    const stored = await conversations.get(id);
    if (!stored || stored.owner !== owner) throw conversationNotFound(id, "conversation_id");
    return stored;
  };
  // A write that finds the conversation gone (deleted meanwhile, on any instance) is a 404 too.
  const written = (done: boolean, id: string): void => {
    if (!done) throw conversationNotFound(id, "conversation_id");
  };

  app.post("/v1/conversations", async (c) => {
    const request = parseBody(CreateConversationRequest, await body(c.req.raw));
    const conversation: ConversationObject = {
      id: newId("conv"),
      object: "conversation",
      created_at: Math.floor(Date.now() / 1000),
      metadata: request.metadata ?? {},
    };
    const items = newItems(request.items ?? [], [], newId);
    await conversations.create(c.get("owner"), conversation, items);
    return c.json(conversation);
  });

  app.get("/v1/conversations/:id", async (c) => c.json((await owned(c.req.param("id"), c.get("owner"))).conversation));

  app.post("/v1/conversations/:id", async (c) => {
    const { conversation } = await owned(c.req.param("id"), c.get("owner"));
    const { metadata } = parseBody(UpdateConversationRequest, await body(c.req.raw));
    written(await conversations.setMetadata(conversation.id, metadata ?? {}), conversation.id);
    return c.json({ ...conversation, metadata: metadata ?? {} });
  });

  app.delete("/v1/conversations/:id", async (c) => {
    const { conversation } = await owned(c.req.param("id"), c.get("owner"));
    await conversations.delete(conversation.id);
    return c.json({ id: conversation.id, object: "conversation.deleted", deleted: true });
  });

  app.get("/v1/conversations/:id/items", async (c) => {
    const { items } = await owned(c.req.param("id"), c.get("owner"));
    return c.json(listInputItems(items, c.req.query()));
  });

  app.post("/v1/conversations/:id/items", async (c) => {
    const stored = await owned(c.req.param("id"), c.get("owner"));
    const request = parseBody(AddConversationItemsRequest, await body(c.req.raw));
    const items = newItems(request.items, stored.items, newId);
    written(await conversations.addItems(stored.conversation.id, items), stored.conversation.id);
    return c.json(listInputItems(items, { order: "asc", limit: "100" }));
  });

  app.get("/v1/conversations/:id/items/:item_id", async (c) => {
    const { items } = await owned(c.req.param("id"), c.get("owner"));
    return c.json(itemOf(items, c.req.param("item_id")));
  });

  app.delete("/v1/conversations/:id/items/:item_id", async (c) => {
    const { conversation, items } = await owned(c.req.param("id"), c.get("owner"));
    const item = itemOf(items, c.req.param("item_id"));
    written(await conversations.removeItem(conversation.id, item.id), conversation.id);
    return c.json(conversation);
  });
}

/**
 * Request items as a conversation keeps them, with ids; references resolve among its items.
 * An item that is in the conversation already, or an id given twice, is a 400, as OpenAI has it.
 */
function newItems(
  input: readonly InputItem[],
  existing: readonly ConversationItem[],
  newId: (prefix: string) => string,
): ConversationItem[] {
  // Output items read as input items (a reference copies one as it is, and is refused as already in it).
  const items = inputItems({ input: [...input] }, existing as StoredInputItem[], newId, "items");
  checkNewItemIds(items, new Set(existing.map((item) => item.id)), () => true, "items");
  return items.map(asConversationItem);
}

function itemOf(items: readonly ConversationItem[], id: string): ConversationItem {
  const item = items.find((candidate) => candidate.id === id);
  if (!item) throw new RequestError(404, `No item with id '${id}' found in this conversation.`, "not_found", "item_id");
  return item;
}
