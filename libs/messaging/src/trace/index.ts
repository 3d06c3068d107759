export * from './message-trace.js';
export * from './message-spans.js';
