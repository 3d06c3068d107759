// The coding agent's LangChain side: what builds models, agent graphs and the checkpointer, and
// reads and writes LangChain messages. Only `AgentKitLoader` loads it, with a dynamic `import()`
// at the first run: the runner's module imports none of it (tools/checks light-services).
export { MAX_CLIENT_RETRIES, createChatModel } from '@caravel/agent/langchain';
export { systemClock } from '@caravel/middleware';
export { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
export { askChatAgent } from '../services/chat-agent-loop.js';
export { agentWorkToolsFor } from './agent-work.js';
export { createRunGraph } from './agent-graph.js';
export { ModelConversationSummarizer } from './conversation-summarizer.js';
export { answersForInterruptedCalls, openingMessages, RunSpans } from './run-messages.js';
