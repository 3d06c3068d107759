// The tools as LangChain tools, for the processes that run an agent (`@caravel/tools/langchain`).
// Apart from the rest so that a process that only names, renders or checks tools never loads
// LangChain.
export { CaravelLangChainTool, toLangChainTools } from './core/langchain-tool.js';
