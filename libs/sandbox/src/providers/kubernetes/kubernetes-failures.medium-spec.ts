import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sandboxErrorReason } from '../../sandbox.errors.js';
import { startFakeKubernetes, type FakeKubernetes } from '../../testing/fake-kubernetes.js';
import { EGRESS_SOCKET_NAME } from '../../proxy/sandbox-egress.js';
import { KubernetesEgressRelay } from './kubernetes-egress-relay.js';
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

  it("gives a pod's command its own sandbox's proxy through the broker's relay", async () => {
    // Each sandbox's "proxy": an HTTP server on its socket that names the sandbox it serves.
    const socketRoot = await mkdtemp(join(tmpdir(), 'caravel-k8s-egress-'));
    const proxies = new Map<string, ReturnType<typeof createServer>>();
    const gateway = {
      socketDir: (id: string) => join(socketRoot, id),
      open: async (id: string) => {
        if (!proxies.has(id)) {
          const server = createServer((request, response) => {
            response.end(`proxy of ${id} got ${request.method} ${request.url}`);
          });
          proxies.set(id, server);
          await mkdir(join(socketRoot, id), { recursive: true });
          await new Promise<void>((resolve) =>
            server.listen(join(socketRoot, id, EGRESS_SOCKET_NAME), resolve),
          );
        }
        return { close: () => Promise.resolve() };
      },
      forget: () => Promise.resolve(),
    };
    const relay = new KubernetesEgressRelay(gateway);
    const port = await relay.listen({ port: 0, host: '127.0.0.1' });
    const kube = provider({
      egress: {
        proxyUrl: `http://127.0.0.1:${port}`,
        gitHost: 'github.example',
        apiHost: 'api.github.example',
      },
      podAddresses: relay,
    });
    try {
      const box = await kube.create({ id: 'sbx-egress' });
      const fetched = await box.exec('curl -s --max-time 20 http://registry.example/pkg');
      expect(fetched.output).toBe('proxy of sbx-egress got GET http://registry.example/pkg');
      await box.close();
      await kube.delete(box.id);
      // Deleted: its pod address is forgotten, and the relay closes what comes from it.
      expect(relay.sandboxAt('127.0.0.1')).toBeUndefined();
    } finally {
      await relay.close();
      for (const server of proxies.values()) server.close();
      await rm(socketRoot, { recursive: true, force: true });
    }
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
