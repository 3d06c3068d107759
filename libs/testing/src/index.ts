export { testEnvironment, type TestEnvironment } from './test-environment.js';
export { serviceGate, type ServiceGate, type RequiredService } from './service-gate.js';
