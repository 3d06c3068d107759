import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { z } from 'zod';

/**
 * Where the `kubernetes` provider's cluster check finds a real cluster (docs/sandbox.md, "Against
 * a real cluster"). Every key has the default that `kind-cluster.yaml` and
 * `kind-sandbox-claim.yaml` beside this file set up, so a developer who followed the doc sets none.
 */
const clusterEnvironmentSchema = z.object({
  /** A context of the default kubeconfig ($KUBECONFIG or ~/.kube/config); unset: kind's. */
  CARAVEL_KUBE_CONTEXT: z.string().min(1).optional(),
  /** The kind cluster looked for when no context is named (`kind get clusters`). */
  CARAVEL_KIND_CLUSTER: z.string().min(1).default('caravel'),
  CARAVEL_KUBE_NAMESPACE: z.string().min(1).default('caravel-sandboxes'),
  /** The claim sandbox pods mount their workspace and home from. */
  CARAVEL_KUBE_CLAIM: z.string().min(1).default('caravel-sandboxes'),
  /** The directory on this machine that the claim shows the pods (kind's `extraMounts`). */
  CARAVEL_KUBE_CLAIM_DIR: z.string().min(1).default('/tmp/caravel-kind-sandboxes'),
  CARAVEL_KUBE_IMAGE: z.string().min(1).default('caravel/sandbox:bookworm'),
  CARAVEL_KUBE_RUNTIME_CLASS: z.string().min(1).optional(),
  /**
   * `1` when the cluster isolates as bwrap does: a kubelet `podPidsLimit` (the fork bomb) and the
   * test's uid 1000 (the user check). kind-cluster.yaml sets the limit.
   */
  CARAVEL_KUBE_ISOLATED: z
    .string()
    .optional()
    .transform((value) => value === '1' || value === 'true'),
});

type ClusterEnvironment = z.infer<typeof clusterEnvironmentSchema>;

/** A reachable cluster, ready for sandbox pods: its claim is there and bound. */
export interface KubernetesCluster {
  readonly context: string;
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly claimName: string;
  /** The claim's content on this machine: a sandbox root must be a directory under it. */
  readonly claimDir: string;
  readonly image: string;
  readonly runtimeClassName: string | undefined;
  readonly isolated: boolean;
}

/** The cluster the check runs against, or why there is none here (the suite's skip reason). */
export type ClusterLookup =
  | { readonly cluster: KubernetesCluster; readonly skipReason: null }
  | { readonly cluster: null; readonly skipReason: string };

const HOW = 'see docs/sandbox.md, "Against a real cluster (kind)"';

const skip = (skipReason: string): ClusterLookup => ({ cluster: null, skipReason });

/** The context named, or kind's context for its cluster when `kind` lists it; else why not. */
function contextOf(env: ClusterEnvironment): { context: string } | { missing: string } {
  if (env.CARAVEL_KUBE_CONTEXT) return { context: env.CARAVEL_KUBE_CONTEXT };
  const kind = spawnSync('kind', ['get', 'clusters'], { encoding: 'utf8', timeout: 10_000 });
  if (kind.error || kind.status !== 0) {
    return { missing: `no CARAVEL_KUBE_CONTEXT and no kind on the PATH (${HOW})` };
  }
  const clusters = kind.stdout.split('\n').map((line) => line.trim());
  return clusters.includes(env.CARAVEL_KIND_CLUSTER)
    ? { context: `kind-${env.CARAVEL_KIND_CLUSTER}` }
    : { missing: `kind has no cluster named ${env.CARAVEL_KIND_CLUSTER} (${HOW})` };
}

/** Why the claim cannot serve sandboxes, or null when it is bound. */
async function claimProblem(config: KubeConfig, env: ClusterEnvironment): Promise<string | null> {
  const api = config.makeApiClient(CoreV1Api);
  const where = `claim ${env.CARAVEL_KUBE_CLAIM} in namespace ${env.CARAVEL_KUBE_NAMESPACE}`;
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('no answer within 10 s')), 10_000).unref(),
  );
  try {
    const claim = await Promise.race([
      api.readNamespacedPersistentVolumeClaim({
        name: env.CARAVEL_KUBE_CLAIM,
        namespace: env.CARAVEL_KUBE_NAMESPACE,
      }),
      timeout,
    ]);
    const phase = claim.status?.phase ?? 'unknown';
    return phase === 'Bound' ? null : `the ${where} is ${phase}, not Bound`;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return `the API server did not give the ${where}: ${message} (${HOW})`;
  }
}

/**
 * Finds the cluster from the environment: the named context or kind's, answering through the
 * Kubernetes API with the sandbox claim bound, and the claim's directory present here.
 */
export async function findKubernetesCluster(): Promise<ClusterLookup> {
  // eslint-disable-next-line no-restricted-syntax -- a test's own settings, parsed once here
  const env = clusterEnvironmentSchema.parse(process.env);
  const found = contextOf(env);
  if ('missing' in found) return skip(found.missing);
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromDefault();
  if (!kubeConfig.getContexts().some((c) => c.name === found.context)) {
    return skip(`the kubeconfig has no context ${found.context} (${HOW})`);
  }
  kubeConfig.setCurrentContext(found.context);
  const problem = await claimProblem(kubeConfig, env);
  if (problem) return skip(problem);
  if (!existsSync(env.CARAVEL_KUBE_CLAIM_DIR)) {
    return skip(`the claim's directory ${env.CARAVEL_KUBE_CLAIM_DIR} is not on this machine`);
  }
  return {
    skipReason: null,
    cluster: {
      context: found.context,
      kubeConfig,
      namespace: env.CARAVEL_KUBE_NAMESPACE,
      claimName: env.CARAVEL_KUBE_CLAIM,
      claimDir: env.CARAVEL_KUBE_CLAIM_DIR,
      image: env.CARAVEL_KUBE_IMAGE,
      runtimeClassName: env.CARAVEL_KUBE_RUNTIME_CLASS,
      isolated: env.CARAVEL_KUBE_ISOLATED,
    },
  };
}
