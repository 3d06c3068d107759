import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../../sandbox.errors.js';
import { startFakeKubernetes, type FakeKubernetes } from '../../testing/fake-kubernetes.js';
import { POD_LABELS, SANDBOX_ID_ANNOTATION, podName } from './kubernetes-pod-spec.js';
import {
  KubernetesSandboxProvider,
  type KubernetesProviderOptions,
} from './kubernetes.provider.js';

let rootDir: string;
let fake: FakeKubernetes;

beforeAll(async () => {
  rootDir = await mkdtemp(join(tmpdir(), 'caravel-k8s-failures-'));
  fake = await startFakeKubernetes({ claims: { sandboxes: rootDir } });
});

afterAll(async () => {
  await fake?.close();
  await rm(rootDir, { recursive: true, force: true });
});

function provider(
  overrides: Partial<KubernetesProviderOptions> = {},
  on: FakeKubernetes = fake,
): KubernetesSandboxProvider {
  return new KubernetesSandboxProvider({
    rootDir,
    claimName: 'sandboxes',
    namespace: 'sandboxes',
    kubeConfig: on.kubeConfig(),
    mountPaths: 'broker',
    podTiming: { pollMs: 50 },
    ...overrides,
  });
}

async function failure(promise: Promise<unknown>): Promise<{ reason?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const reason = sandboxErrorReason(error);
    return { ...(reason ? { reason } : {}), message: (error as Error).message };
  }
  throw new Error('expected a failure');
}

describe('kubernetes provider failure paths (fake API)', () => {
  it('names the refused verb and the RBAC to check when the API answers 403', async () => {
    const forbidden =
      'pods is forbidden: User "system:serviceaccount:caravel:broker" cannot create resource "pods"';
    fake.fail('create', { status: 403, reason: 'Forbidden', message: forbidden });
    const outcome = await failure(provider().create({ id: 'sbx-forbidden' }));
    expect(outcome.reason).toBe('provider_auth_failed');
    expect(outcome.message).toContain('kubernetes refused creating pod');
    expect(outcome.message).toContain(forbidden);
    // The half-made sandbox is not left to adopt.
    expect((await failure(provider().connect('sbx-forbidden'))).reason).toBe('sandbox_not_found');
  });

  it('refuses a session when the exec upgrade is forbidden', async () => {
    fake.fail('exec', {
      status: 403,
      reason: 'Forbidden',
      message: 'cannot create resource "pods/exec"',
    });
    const outcome = await failure(provider().create({ id: 'sbx-no-exec' }));
    expect(outcome.reason).toBe('provider_auth_failed');
    expect(outcome.message).toContain('starting a session');
    expect(fake.pods.has(`sandboxes/${podName('sbx-no-exec')}`)).toBe(false);
  });

  it('fails as unavailable, naming the call, when the API does not answer', async () => {
    fake.fail('get', 'hang');
    const outcome = await failure(provider({ podTiming: { requestTimeoutMs: 1_000 } }).create());
    expect(outcome.reason).toBe('provider_unavailable');
    expect(outcome.message).toMatch(/reading pod caravel-sbx-.* no answer within 1000 ms/);
  });

  it('names the phase and reason of a pod that never runs, and removes it', async () => {
    fake.holdPending({
      reason: 'ImagePullBackOff',
      message: 'Back-off pulling image "caravel/sandbox:nope"',
    });
    try {
      const outcome = await failure(
        provider({ podTiming: { pollMs: 50, startTimeoutMs: 1_500 } }).create({
          id: 'sbx-pending',
        }),
      );
      expect(outcome.reason).toBe('provider_unavailable');
      expect(outcome.message).toContain(
        'Pending (ImagePullBackOff: Back-off pulling image "caravel/sandbox:nope")',
      );
      expect(fake.pods.has(`sandboxes/${podName('sbx-pending')}`)).toBe(false);
    } finally {
      fake.holdPending(null);
    }
  });

  it('reaps its own pods whose sandbox is gone after a restart, and only those', async () => {
    const live = await provider().create({ id: 'sbx-live' });
    await live.close();
    const stray = (name: string, owner: string, id: string) => ({
      metadata: {
        name,
        labels: { [POD_LABELS.sandbox]: 'true', [POD_LABELS.owner]: owner },
        annotations: { [SANDBOX_ID_ANNOTATION]: id },
      },
      status: { phase: 'Running' },
    });
    fake.addPod('sandboxes', stray('caravel-sbx-orphan', 'caravel', 'sbx-deleted-before-crash'));
    fake.addPod('sandboxes', stray('caravel-sbx-other', 'another-release', 'sbx-not-ours'));
    const restarted = provider();
    expect(await restarted.reapOrphans()).toEqual(['caravel-sbx-orphan']);
    expect([...fake.pods.keys()].sort()).toEqual(
      ['sandboxes/caravel-sbx-other', `sandboxes/${podName('sbx-live')}`].sort(),
    );
    await restarted.delete('sbx-live');
    expect(fake.pods.has(`sandboxes/${podName('sbx-live')}`)).toBe(false);
  });

  it('runs one-shot commands as execs, their output kept in a host file', async () => {
    const kube = provider();
    const box = await kube.create({ id: 'sbx-one-shot' });
    const outputFile = join(rootDir, 'one-shot.out');
    const result = await kube.runOneShot(
      box.id,
      ['sh', '-c', 'printf "out:$GIT_CONFIG_KEY_1"; echo err >&2; exit 4'],
      { outputFile, maxOutputBytes: 1_000, timeoutMs: 10_000 },
    );
    expect(result).toEqual({
      exitCode: 4,
      stderr: 'err\n',
      outputBytes: 'out:core.hooksPath'.length,
    });
    expect(await readFile(outputFile, 'utf8')).toBe('out:core.hooksPath');
    const tooLarge = failure(
      kube.runOneShot(box.id, ['sh', '-c', 'head -c 100000 /dev/zero'], {
        outputFile: join(rootDir, 'large.out'),
        maxOutputBytes: 1_000,
        timeoutMs: 10_000,
      }),
    );
    expect((await tooLarge).reason).toBe('one_shot_too_large');
    await box.close();
    await kube.delete(box.id);
  });

  it('speaks v4.channel.k8s.io with an API server that offers no v5', async () => {
    const v4 = await startFakeKubernetes({
      claims: { sandboxes: rootDir },
      protocols: ['v4.channel.k8s.io'],
    });
    try {
      const kube = provider({}, v4);
      const box = await kube.create();
      expect(await box.exec('echo over v4; exit 3')).toMatchObject({
        exitCode: 3,
        output: 'over v4\n',
      });
      expect(v4.requests.some((line) => line.endsWith('v4.channel.k8s.io'))).toBe(true);
      await box.close();
      await kube.delete(box.id);
    } finally {
      await v4.close();
    }
  });
});
