export * from './envelope.js';
export * from './partition.js';
export * from './streams.js';
export * from './define-message.js';
export * from './define-request.js';
export * from './ids.js';
export * from './catalogue/index.js';
export * from './thread-ids.js';
