import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll } from '@jest/globals';
import { findKubernetesCluster } from '../../testing/kubernetes-cluster.js';
import { describeSandboxBehaviour } from '../../testing/sandbox-behaviour.suite.js';
import { KubernetesSandboxProvider } from './kubernetes.provider.js';

// The suite every provider shares, against a real cluster when one is reachable (kind, set up as
// docs/sandbox.md says, or the context CARAVEL_KUBE_CONTEXT names): real pods from the sandbox
// image, real execs through the API server, the workspace on a claim this process shares with
// the pods, as the broker shares its SANDBOX_ROOT. Skipped with its reason anywhere else, CI
// included: a cluster is not one of the services CI provides.
const { cluster, skipReason } = await findKubernetesCluster();
const runDirs: string[] = [];

afterAll(() => {
  for (const dir of runDirs) rmSync(dir, { recursive: true, force: true });
});

describeSandboxBehaviour({
  name: `kubernetes-cluster${cluster ? ` (${cluster.context})` : ''}`,
  isolated: cluster?.isolated ?? false,
  skipReason,
  // The suite's own root is a temporary directory no pod can see; the sandboxes live in one
  // under the claim's directory instead, which is where the claim's subPath points.
  make: () => {
    if (!cluster) throw new Error(`no cluster: ${skipReason}`);
    const rootDir = mkdtempSync(join(cluster.claimDir, 'run-'));
    chmodSync(rootDir, 0o755);
    runDirs.push(rootDir);
    return new KubernetesSandboxProvider({
      rootDir,
      claimName: cluster.claimName,
      claimSubPath: basename(rootDir),
      namespace: cluster.namespace,
      kubeConfig: cluster.kubeConfig,
      image: cluster.image,
      // On kind, the image `kind load docker-image` gave the node; elsewhere, a registry's.
      imagePullPolicy: 'IfNotPresent',
      ...(cluster.runtimeClassName ? { runtimeClassName: cluster.runtimeClassName } : {}),
      owner: `caravel-test-${randomBytes(4).toString('hex')}`,
      timing: { killGraceMs: 1_000, startTimeoutMs: 60_000, watchdogSlackMs: 5_000 },
    });
  },
});
