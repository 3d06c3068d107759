import { createTestPostgresDatabase, serviceGate, testEnvironment } from '@caravel/testing';
import { buildWorkspace, freePort, ServiceProcess } from './support/processes.js';

const gate = await serviceGate(['postgres']);

/** Starts dispatch with `env` and returns its exit code and what it printed. */
async function startDispatch(
  env: Record<string, string>,
): Promise<{ code: number | null; log: string }> {
  const service = new ServiceProcess('dispatch', await freePort(), env);
  const code = await service.waitForExit();
  return { code, log: service.log };
}

gate.describe('a service that cannot start says why in one line and exits non-zero', () => {
  beforeAll(() => buildWorkspace());

  it('lists every invalid configuration key at once', async () => {
    const { code, log } = await startDispatch({ NATS_URL: 'http://wrong', LOG_LEVEL: 'chatty' });
    expect(code).toBe(1);
    expect(log).toContain('dispatch failed to start: invalid configuration for dispatch');
    expect(log).toContain('NATS_URL: must be a nats:// URL (got "http://wrong")');
    expect(log).toContain('DATABASE_URL');
    expect(log).toContain('LOG_LEVEL');
    expect(log).not.toMatch(/\n\s+at /);
  });

  it('names an unreachable PostgreSQL and how to start it', async () => {
    const { code, log } = await startDispatch({
      NATS_URL: testEnvironment.TEST_NATS_URL,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/caravel',
    });
    expect(code).toBe(1);
    expect(log).toMatch(/dispatch failed to start: .*127\.0\.0\.1:1/);
    expect(log).toContain('pg_ctlcluster');
    expect(log).not.toMatch(/\n\s+at /);
  });

  it('names an unreachable NATS and how to start it', async () => {
    const database = await createTestPostgresDatabase();
    const { code, log } = await startDispatch({
      NATS_URL: 'nats://127.0.0.1:1',
      DATABASE_URL: database.url,
    }).finally(() => database.drop());
    expect(code).toBe(1);
    expect(log).toContain('dispatch failed to start: NATS is not reachable at nats://127.0.0.1:1');
    expect(log).toContain('nats-server -js');
    expect(log).not.toMatch(/\n\s+at /);
  });
});
