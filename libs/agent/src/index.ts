export {};
export * from './models/index.js';
export * from './loop/index.js';
export * from './trajectory/index.js';
export * from './replay/index.js';
export { LazyImport } from './lazy/lazy-import.js';
export { lazyChatModel, type ChatModelKit } from './lazy/lazy-chat-model.js';
