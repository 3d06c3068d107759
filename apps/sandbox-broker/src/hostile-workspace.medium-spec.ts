import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapAvailable, type SandboxBrokerClient } from '@caravel/sandbox';
import { seedRemote } from '@caravel/sandbox/testing';
import { testEnvironment } from '@caravel/testing';
import {
  brokerConfig,
  BrokerUnderTest,
  busTargets,
  dropNamespace,
} from './testing/broker-harness.js';
import {
  clearMarkers,
  HOSTILE_WORKSPACES,
  hostTrapRepository,
  markersIn,
  oneHostileWorkspaceOfEachKind,
} from './testing/hostile-workspaces.js';
import { WorkspaceHost } from './services/workspace-host.js';

const namespace = `hw${randomBytes(4).toString('hex')}`;
const targets = await busTargets(namespace);

afterAll(async () => {
  if (!targets[1]?.gate.missing) await dropNamespace(namespace);
});

// The trust boundary is bubblewrap's: required in CI, skipped with its reason elsewhere.
const bwrapMissing = !bwrapAvailable();
if (bwrapMissing && !testEnvironment.CI) {
  process.stdout.write(
    'hostile workspaces on bwrap skipped: bubblewrap is not installed (apt-get install bubblewrap)\n',
  );
}
const providers = bwrapMissing && !testEnvironment.CI ? ['local'] : ['bwrap', 'local'];

const slug = (name: string) => name.replace(/[^a-z0-9]+/gi, '-').toLowerCase();
const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'safe.directory=*', ...args], { cwd, encoding: 'utf8' }).trim();

for (const provider of providers) {
  // Without isolation only the platform's own git is on trial: once, on the embedded pair.
  for (const target of provider === 'local' ? targets.slice(0, 1) : targets) {
    target.gate.describe(`hostile workspaces [${provider}, ${target.label}]`, () => {
      let dir: string;
      let rootDir: string;
      let markerDir: string;
      let remote: string;
      let controlRemote: string;
      let hostRepo: string;
      let broker: BrokerUnderTest;
      let client: SandboxBrokerClient;

      beforeAll(async () => {
        dir = await mkdtemp(join(tmpdir(), 'caravel-hostile-'));
        // bubblewrap runs as an unprivileged uid that must traverse to the sandboxes.
        await chmod(dir, 0o755);
        rootDir = join(dir, 'sandboxes');
        markerDir = await mkdtemp(join(tmpdir(), 'caravel-markers-'));
        remote = await seedRemote(join(dir, 'remotes'));
        controlRemote = await seedRemote(join(dir, 'remotes'), 'acme/control');
        hostRepo = await hostTrapRepository(join(dir, 'host-repo'), join(markerDir, 'host-repo'));
        broker = await BrokerUnderTest.start(target, () =>
          brokerConfig({
            SANDBOX_PROVIDER: provider,
            SANDBOX_ROOT: rootDir,
            SANDBOX_EGRESS: 'none',
          }),
        );
        client = broker.client;
      });

      afterAll(async () => {
        await broker?.stop();
        await rm(dir, { recursive: true, force: true });
        await rm(markerDir, { recursive: true, force: true });
      });

      const repository = () => ({ owner: 'acme', name: 'widgets', cloneUrl: remote });
      // Every trap on bubblewrap over the embedded bus; over JetStream, which carries the same
      // broker calls, one of each kind; without isolation (the same host-side git as bubblewrap's),
      // one of each kind isolation does not stop.
      const cases =
        provider === 'bwrap' && target === targets[0]
          ? HOSTILE_WORKSPACES
          : oneHostileWorkspaceOfEachKind().filter(
              (c) => provider !== 'local' || !c.needsIsolation,
            );

      for (const hostile of cases) {
        it(`runs nothing of ${hostile.name} outside the sandbox`, async () => {
          const threadId = randomUUID();
          const branch = `caravel/${slug(hostile.name).slice(0, 40)}`;
          const marker = join(markerDir, slug(hostile.name));
          const sandbox = await client.acquire({ threadId, branch, repository: repository() });
          const installed = await sandbox.exec(
            `echo change > change.txt && ${hostile.install(marker, hostRepo)}`,
          );
          expect(installed).toMatchObject({ exitCode: 0 });

          // The trap is live: the git the broker used to run on the host would have sprung it
          // (run on a copy: host git as root would leave files the sandbox user cannot write).
          const copy = join(dir, `control-${sandbox.id}`);
          execFileSync('cp', ['-a', join(rootDir, sandbox.id, 'workspace'), copy]);
          hostile.control(copy, controlRemote);
          expect((await markersIn(markerDir)).length).toBeGreaterThan(0);
          await clearMarkers(markerDir);

          const published = await client
            .push({ threadId, branch, repository: repository(), commitMessage: 'hostile' })
            .catch((error: unknown) => error);
          if (hostile.breaksRepository && provider !== 'local') {
            expect(published).toMatchObject({ code: 'PRECONDITION_FAILED' });
          } else if (!hostile.breaksRepository) {
            expect(published).toMatchObject({ pushed: true, origin: remote });
            const { commitSha } = published as { commitSha: string };
            expect(git(remote, 'rev-parse', `refs/heads/${branch}`)).toBe(commitSha);
          }
          await client.acquire({ threadId, branch, repository: repository() }).catch(() => null);
          await client.diffSince(threadId, 'HEAD').catch(() => null);
          const attemptId = randomUUID();
          await client
            .acquire({ threadId: attemptId, branch, repository: repository(), startFrom: threadId })
            .catch(() => null);
          await client.discard(attemptId).catch(() => false);
          await sandbox.exec('echo more > unsaved.txt').catch(() => null);
          await broker.host.app
            .get(WorkspaceHost, { strict: false })
            .snapshot({ id: randomUUID(), threadId, provider, externalId: sandbox.id })
            .catch(() => null);

          expect(await markersIn(markerDir)).toEqual([]);
        });
      }
    });
  }
}
