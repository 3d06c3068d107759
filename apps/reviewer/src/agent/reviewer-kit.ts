// The reviewer's LangChain side: its agent and the models. Only `ReviewerKitLoader` loads it,
// with a dynamic `import()` at the first review: the reviewer's module imports none of it
// (tools/checks light-services).
export { MAX_CLIENT_RETRIES, createChatModel } from '@caravel/agent/langchain';
export { buildReviewerAgent } from './reviewer-agent.js';
