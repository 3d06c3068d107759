import { describe, expect, it } from '@jest/globals';
import { DEFAULT_SANDBOX_SETTINGS } from '../sandbox-store.js';
import { kubernetesEgressEnvironment } from './kubernetes-egress.js';
import { ownerSelector, podName, sandboxPod, type SandboxPodInput } from './kubernetes-pod-spec.js';

const GIB = 1024 ** 3;

function input(overrides: Partial<SandboxPodInput> = {}): SandboxPodInput {
  return {
    sandboxId: 'thread-42_Main',
    owner: 'caravel',
    image: 'registry.example/caravel/sandbox:1',
    user: { uid: 1000, gid: 1000 },
    claimName: 'caravel-sandboxes',
    subPaths: { workspace: 'thread-42_Main/workspace', home: 'thread-42_Main/home' },
    env: { PATH: '/usr/bin:/bin', HOME: '/home/agent' },
    limits: {
      ...DEFAULT_SANDBOX_SETTINGS.limits,
      maxCpus: 1.5,
      maxMemoryBytes: 2 * GIB,
      maxTmpBytes: GIB / 2,
    },
    requests: { cpus: 0.25, memoryBytes: 512 * 1024 ** 2 },
    ephemeralStorageBytes: GIB,
    ...overrides,
  };
}

describe('sandboxPod', () => {
  it('gives the pod no service-account token, no service links and no secret in its environment', () => {
    const pod = sandboxPod(input());
    expect(pod.spec?.automountServiceAccountToken).toBe(false);
    expect(pod.spec?.enableServiceLinks).toBe(false);
    const container = pod.spec?.containers[0];
    expect(container?.envFrom).toBeUndefined();
    expect(container?.env?.every((entry) => entry.valueFrom === undefined)).toBe(true);
    expect(container?.env).toEqual([
      { name: 'PATH', value: '/usr/bin:/bin' },
      { name: 'HOME', value: '/home/agent' },
    ]);
  });

  it('runs non-root with no privilege escalation, no capabilities, a read-only root and RuntimeDefault seccomp', () => {
    const pod = sandboxPod(input());
    expect(pod.spec?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 1000,
      runAsGroup: 1000,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect(pod.spec?.containers[0]?.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      privileged: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
  });

  it('turns the sandbox limits into requests and limits, /tmp into a capped memory emptyDir', () => {
    const pod = sandboxPod(input());
    expect(pod.spec?.containers[0]?.resources).toEqual({
      requests: { cpu: '250m', memory: String(512 * 1024 ** 2) },
      limits: { cpu: '1500m', memory: String(2 * GIB), 'ephemeral-storage': String(GIB) },
    });
    expect(pod.spec?.volumes).toContainEqual({
      name: 'tmp',
      emptyDir: { medium: 'Memory', sizeLimit: String(GIB / 2) },
    });
    const small = sandboxPod(input({ requests: { cpus: 4, memoryBytes: 8 * GIB } }));
    expect(small.spec?.containers[0]?.resources?.requests).toEqual({
      cpu: '1500m',
      memory: String(2 * GIB),
    });
  });

  it('sets the runtime class only when one is configured', () => {
    expect(sandboxPod(input()).spec?.runtimeClassName).toBeUndefined();
    expect(sandboxPod(input({ runtimeClassName: 'gvisor' })).spec?.runtimeClassName).toBe('gvisor');
  });

  it("mounts the sandbox's own directories of the claim, and nothing else of it", () => {
    const pod = sandboxPod(input());
    expect(pod.spec?.containers[0]?.volumeMounts).toEqual([
      { name: 'sandboxes', mountPath: '/workspace', subPath: 'thread-42_Main/workspace' },
      { name: 'sandboxes', mountPath: '/home/agent', subPath: 'thread-42_Main/home' },
      { name: 'tmp', mountPath: '/tmp' },
    ]);
    expect(pod.spec?.volumes).toContainEqual({
      name: 'sandboxes',
      persistentVolumeClaim: { claimName: 'caravel-sandboxes' },
    });
  });

  it('labels the pod for the NetworkPolicy and the orphan sweep, with a valid DNS name', () => {
    const pod = sandboxPod(input());
    expect(pod.metadata?.labels).toMatchObject({
      'caravel.dev/sandbox': 'true',
      'caravel.dev/sandbox-owner': 'caravel',
    });
    expect(pod.metadata?.annotations).toEqual({ 'caravel.dev/sandbox-id': 'thread-42_Main' });
    expect(ownerSelector('caravel')).toBe(
      'caravel.dev/sandbox=true,caravel.dev/sandbox-owner=caravel',
    );
    const dnsLabel = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
    for (const id of ['thread-42_Main', 'A'.repeat(128), '_.-x', 'sbx-0f4c'])
      expect(podName(id)).toMatch(dnsLabel);
    expect(podName('Thread_1')).not.toBe(podName('thread-1'));
  });
});

describe('kubernetesEgressEnvironment', () => {
  it("points every proxy setting at the broker's relay and carries only the placeholder token", () => {
    const env = kubernetesEgressEnvironment({
      proxyUrl: 'http://caravel-egress.caravel.svc:3128/',
      gitHost: 'github.com',
      apiHost: 'api.github.com',
    });
    for (const name of [
      'http_proxy',
      'https_proxy',
      'HTTP_PROXY',
      'HTTPS_PROXY',
      'GIT_CONFIG_VALUE_0',
    ])
      expect(env[name]).toBe('http://caravel-egress.caravel.svc:3128');
    expect(Object.values(env).some((value) => value.includes('127.0.0.1'))).toBe(false);
    expect(env['GH_TOKEN']).toBe('caravel-placeholder');
    expect(env['GIT_CONFIG_KEY_1']).toBe('url.http://github.com/.insteadOf');
  });
});
