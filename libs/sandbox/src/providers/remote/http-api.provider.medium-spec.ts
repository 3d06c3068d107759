import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from '@jest/globals';
import { describeSandboxBehaviour } from '../../testing/sandbox-behaviour.suite.js';
import { HttpApiSandboxProvider } from './http-api.provider.js';
import {
  startFakeSandboxService,
  type FakeSandboxService,
} from './testing/fake-sandbox-service.js';

const API_KEY = 'test-remote-key';
let serviceRoot: string;
let service: FakeSandboxService;

beforeAll(async () => {
  serviceRoot = await mkdtemp(join(tmpdir(), 'caravel-remote-service-'));
  await chmod(serviceRoot, 0o755);
  service = await startFakeSandboxService({
    apiKey: API_KEY,
    rootDir: serviceRoot,
    timing: { killGraceMs: 1_000, startTimeoutMs: 15_000, watchdogSlackMs: 5_000 },
  });
});

afterAll(async () => {
  await service?.close();
  await rm(serviceRoot, { recursive: true, force: true });
});

// Every call of the suite goes over HTTP to a real persistent session behind the loopback fake.
describeSandboxBehaviour({
  name: 'remote (HTTP API v1)',
  isolated: false,
  skipReason: null,
  make: () => new HttpApiSandboxProvider({ baseUrl: service.url, apiKey: API_KEY }),
});
