import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../../sandbox.errors.js';
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
  streamsOutput: false,
  make: () => new HttpApiSandboxProvider({ baseUrl: service.url, apiKey: API_KEY }),
});

describe('remote provider against the fake service', () => {
  const reasonOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'resolved',
      (error: unknown) => sandboxErrorReason(error),
    );

  it('is refused with a wrong key and finds no unknown sandbox', async () => {
    const wrongKey = new HttpApiSandboxProvider({ baseUrl: service.url, apiKey: 'wrong' });
    expect(await reasonOf(wrongKey.create())).toBe('provider_auth_failed');
    const provider = new HttpApiSandboxProvider({ baseUrl: service.url, apiKey: API_KEY });
    expect(await reasonOf(provider.connect('sbx-unknown'))).toBe('sandbox_not_found');
    expect(await reasonOf(provider.delete('sbx-unknown'))).toBe('sandbox_not_found');
  });

  it('keeps two sessions of one sandbox apart but shares their files', async () => {
    const provider = new HttpApiSandboxProvider({ baseUrl: service.url, apiKey: API_KEY });
    const first = await provider.create();
    const second = await provider.connect(first.id);
    await first.exec('mkdir -p sub && cd sub && export ONLY_FIRST=1 && echo shared > f.txt');
    expect((await second.exec('pwd; echo "${ONLY_FIRST:-unset}"')).output).toBe(
      `${second.workdir}\nunset\n`,
    );
    expect(await second.readFile('sub/f.txt')).toBe('shared\n');
    await first.close();
    expect(await reasonOf(first.exec('true'))).toBe('session_closed');
    expect(await second.ping()).toBe(true);
    await provider.delete(first.id);
    expect(await second.ping()).toBe(false);
  });
});
