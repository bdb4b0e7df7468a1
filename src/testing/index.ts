export { mockFault, type MockTurnOptions, mockTurn } from "./mock-turn.js";
export {
  loadMockScript,
  MockCitation,
  MockCompaction,
  MockContent,
  MockCustomToolCallContent,
  MockFault,
  MockRoute,
  MockScript,
  MockStopReason,
  MockTextContent,
  MockThinkingContent,
  MockToolUseContent,
  MockTurn,
  MockUsage,
  MockWebSearchContent,
  parseMockScript,
} from "./script.js";
export { type MockLLMEnv, type MockLLMOptions, type MockLLMServer, type MockRequest, startMockLLM } from "./server.js";
export type { MockFormat } from "./wire-format.js";
