export { apiKeysOf, loadServerConfig, type ServerConfig, type ServerConfigFile, type ServedModel } from "./config.js";
export { createServer } from "./create-server.js";
export { attachWebSocket } from "./websocket.js";
export type { CompactResource } from "./compact.js";
export { type ErrorBody, RequestError } from "./errors.js";
export { type ServeOptions, type RunningServer, serve } from "./serve.js";
export type { ItemList } from "./list-items.js";
export type { OutputItem, ResponseObject, ResponseStatus, ResponseUsage, StoredInputItem } from "./response-object.js";
export { type ResponseStore, SessionResponseStore, type StoredResponse } from "./response-store.js";
