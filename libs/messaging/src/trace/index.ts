export * from './message-trace.js';
