// Loopback fake LLM providers (the OpenAI-compatible and Anthropic wire formats), node:http only.
// Production code, because `caravel fake-model` serves one so that anyone can try Caravel without
// a key; a library of its own, depending on none, so that the test library (which re-exports it
// for the tests) and the CLI both reach it without an import cycle through the agent's libraries.
export { FakeLlmServer, startFakeOpenAi, startFakeAnthropic } from './fake-llm-server.js';
export type {
  FakeLlmReply,
  FakeMessageReply,
  FakeErrorReply,
  FakeToolCall,
  FakeUsage,
  RecordedLlmRequest,
} from './fake-llm.types.js';
