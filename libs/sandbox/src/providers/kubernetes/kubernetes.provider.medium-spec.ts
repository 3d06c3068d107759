import { afterAll, beforeAll } from '@jest/globals';
import { describeSandboxBehaviour } from '../../testing/sandbox-behaviour.suite.js';
import { startFakeKubernetes, type FakeKubernetes } from '../../testing/fake-kubernetes.js';
import { KubernetesSandboxProvider } from './kubernetes.provider.js';

// The suite every provider shares, over the official client against the loopback fake of the
// API: pods over REST, every session and one-shot command over the exec WebSocket (v5). The
// fake's "kubelet" runs execs as local processes, so this proves the session contract and the
// lifecycle, not isolation (that is the cluster's runtime: see docs/sandbox.md for kind).
let fake: FakeKubernetes;
const claimDirs: Record<string, string> = {};

beforeAll(async () => {
  fake = await startFakeKubernetes({ claims: claimDirs });
});

afterAll(async () => {
  await fake?.close();
});

describeSandboxBehaviour({
  name: 'kubernetes-fake-api',
  isolated: false,
  skipReason: null,
  make: (rootDir) => {
    claimDirs['sandboxes'] = rootDir;
    return new KubernetesSandboxProvider({
      rootDir,
      claimName: 'sandboxes',
      namespace: 'sandboxes',
      kubeConfig: fake.kubeConfig(),
      mountPaths: 'broker',
      timing: { killGraceMs: 1_000, startTimeoutMs: 15_000, watchdogSlackMs: 5_000 },
      podTiming: { pollMs: 50 },
    });
  },
});
