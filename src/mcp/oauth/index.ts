export { GyreOAuthProvider, type GyreOAuthProviderOptions, type InteractiveAuthorization } from "./client-provider.js";
export { type CallbackListener, listenForCallback } from "./loopback.js";
export { defaultOAuthFolder, type OAuthRecord, OAuthTokenStore } from "./token-store.js";
