export { FakeLlmServer, startFakeOpenAi, startFakeAnthropic } from './fake-llm-server.js';
export type {
  FakeLlmReply,
  FakeMessageReply,
  FakeErrorReply,
  FakeToolCall,
  FakeUsage,
  RecordedLlmRequest,
} from './fake-llm.types.js';
