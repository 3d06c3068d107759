// The analyzer's LangChain side: its agent and the models. Only `AnalyzerKitLoader` loads it,
// with a dynamic `import()` at the first analysis: the analyzer's module imports none of it
// (tools/checks light-services).
export { MAX_CLIENT_RETRIES, createChatModel } from '@caravel/agent/langchain';
export { analyzerBrief, buildAnalyzerAgent } from './analyzer-agent.js';
