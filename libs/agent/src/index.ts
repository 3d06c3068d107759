export {};
export * from './models/index.js';
