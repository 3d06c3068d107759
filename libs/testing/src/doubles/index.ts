// Test doubles with no dependencies (no servers, no database driver): cheap to load in unit specs.
export { strictMock, type Stubs } from './strict-mock.js';
export { MemoryLeases } from './memory-leases.js';
