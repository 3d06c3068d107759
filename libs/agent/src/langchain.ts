// Chat models as LangChain classes (the providers' clients, the scripted and replay models), for
// the processes that call a model (`@caravel/agent/langchain`). Apart from the rest of the
// library so that a process that only names, resolves or checks a model never loads LangChain.
export {
  createChatModel,
  MAX_CLIENT_RETRIES,
  type ChatModelOptions,
} from './models/chat-model.factory.js';
export {
  CannedChatModel,
  type CannedCall,
  type CannedChatModelInput,
} from './models/canned/canned-chat.model.js';
