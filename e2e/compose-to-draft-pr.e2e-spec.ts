import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithDockerCompose } from './support/compose-docker.js';
import { ComposePlatform } from './support/compose-platform.js';
import { ComposeScenario } from './support/compose-scenario.js';

// The images as they ship, booted by `docker compose up` with infra/docker/docker-compose.e2e.yml
// on top: NATS, PostgreSQL and the seven services in containers, the sandbox in bubblewrap inside
// the broker's container. Only GitHub is faked, on this machine, reached from the containers as
// host.docker.internal. Wherever there is no Docker engine (or no Compose 2.24.4+) it says
// "skipped: <reason>", under CI=true too. compose-override-on-processes.e2e-spec.ts runs the same
// thread with the same settings where there is no engine.
describeWithDockerCompose('docker compose up: a signed GitHub mention becomes a draft PR', () => {
  let dir: string;
  let scenario: ComposeScenario | undefined;
  let platform: ComposePlatform | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-e2e-compose-'));
    await chmod(dir, 0o755);
    scenario = new ComposeScenario(dir);
    const variables = await scenario.start('host.docker.internal');
    // Building seven images from scratch takes minutes; the services' health, up to ten more.
    platform = await ComposePlatform.up(variables);
  }, 40 * 60_000);

  afterAll(async () => {
    await platform?.close();
    await scenario?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  }, 5 * 60_000);

  it(
    'clones, edits in the sandbox, pushes through the proxy and opens the draft PR',
    async () => {
      if (!scenario || !platform) throw new Error('the platform did not start');
      await scenario.expectMentionBecomesDraftPr(platform, 300_000);
    },
    10 * 60_000,
  );
});
