/** A JSON value, in the shape provider packages accept as options. */
export type JsonValue = null | string | number | boolean | JsonObject | JsonValue[];
/** A JSON object (`undefined` members are left out when it is sent). */
export type JsonObject = { [key: string]: JsonValue | undefined };

/**
 * Provider-specific call settings, by provider (`{ anthropic: { thinking: … } }`), passed
 * through to the provider package unchanged.
 */
export type ProviderOptions = Record<string, JsonObject>;
