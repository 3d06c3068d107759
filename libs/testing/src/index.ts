export { testEnvironment, type TestEnvironment } from './test-environment.js';
export { serviceGate, type ServiceGate, type RequiredService } from './service-gate.js';
export {
  testDatabaseTargets,
  describeEachDatabase,
  createTestPostgresDatabase,
  databaseUrlAs,
  type TestDatabaseTarget,
  type ClosableDatabase,
  type DatabaseOpener,
  type TestPostgresDatabase,
} from './database.js';
export {
  FakeLlmServer,
  startFakeOpenAi,
  startFakeAnthropic,
  type FakeLlmReply,
  type FakeMessageReply,
  type FakeErrorReply,
  type FakeToolCall,
  type FakeUsage,
  type RecordedLlmRequest,
} from './fake-llm/index.js';
export { TcpProxy } from './tcp-proxy.js';
// Strict doubles come from the light `@caravel/testing/doubles` (no servers, no pg), for unit specs.
// Loopback fakes of the SaaS APIs (GitHub + git smart-HTTP, Slack, Linear, Jira, Confluence,
// Tavily web search).
export * from './fakes/index.js';
