import { startEmbedded } from '@caravel/cli';
import type { Bus } from '@caravel/messaging';
import { BUS, type ServiceHost } from '@caravel/platform';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driveWalkingSkeleton, expectReady } from './support/walking-skeleton.js';

describe('walking skeleton, embedded (one process, embedded bus + PGlite)', () => {
  let dataDir: string;
  let host: ServiceHost | undefined;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'caravel-e2e-'));
    // bubblewrap runs as an unprivileged user, which must be able to reach the sandboxes below.
    await chmod(dataDir, 0o755);
  });

  afterAll(async () => {
    await host?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('serves health without any external service', async () => {
    host = await startEmbedded({ LOG_LEVEL: 'warn' }, { dataDir, port: 0, handleSignals: false });
    await expectReady(host.url);
  });

  it('takes a synthetic trigger through dispatch, the runner and the broker to the dashboard', async () => {
    if (!host) throw new Error('host did not start');
    await driveWalkingSkeleton(host.app.get<symbol, Bus>(BUS), host.url);
  });

  it('keeps its data across a restart on the same data directory', async () => {
    await host?.close();
    host = await startEmbedded({ LOG_LEVEL: 'warn' }, { dataDir, port: 0, handleSignals: false });
    const response = await fetch(`${host.url}/api/runs`);
    const runs = (await response.json()) as { status: string }[];
    expect(runs.length).toBeGreaterThanOrEqual(1);
    expect(runs.every((r) => r.status === 'completed')).toBe(true);
  });
});
