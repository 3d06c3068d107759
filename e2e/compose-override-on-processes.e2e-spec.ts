import { serviceGate } from '@caravel/testing';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Platform } from './support/platform.js';
import { ComposeScenario, startOverrideOnProcesses } from './support/compose-scenario.js';

/** This machine's first address off the loopback (the relay must answer there), else loopback. */
function outsideAddress(): string {
  const addresses = Object.values(networkInterfaces()).flatMap((list) => list ?? []);
  return addresses.find((a) => a.family === 'IPv4' && !a.internal)?.address ?? '127.0.0.1';
}

const gate = await serviceGate(['nats', 'postgres']);

// What compose-to-draft-pr.e2e-spec.ts boots in containers, where no Docker engine is: each
// service as a process with the settings infra/docker/docker-compose.e2e.yml gives its container,
// the fake GitHub reached through the relay on an address off the loopback, as containers reach
// it. So the override's settings and the relay are proven everywhere; the images, compose and
// bubblewrap inside a container only where the engine is.
gate.describe('the compose e2e settings, as processes: a signed mention becomes a draft PR', () => {
  let dir: string;
  let scenario: ComposeScenario | undefined;
  let platform: Platform | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-e2e-compose-processes-'));
    await chmod(dir, 0o755);
    scenario = new ComposeScenario(dir);
    platform = await startOverrideOnProcesses(dir, await scenario.start(outsideAddress()));
  });

  afterAll(async () => {
    await platform?.close();
    await scenario?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('takes the mention to a draft PR with the fix pushed and a completed run', async () => {
    if (!scenario || !platform) throw new Error('the platform did not start');
    await scenario.expectMentionBecomesDraftPr(platform, 120_000);
  });
});
