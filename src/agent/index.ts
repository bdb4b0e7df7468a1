export { Agent, type AgentOptions, AgentSession, type AgentSessionOptions } from "./agent.js";
