import { createHash } from 'node:crypto';
import type { V1Pod, V1ResourceRequirements } from '@kubernetes/client-node';
import type { FileOwner } from '../../files/workdir-files.js';
import type { SandboxLimits } from '../../sandbox.types.js';

/** Where things appear inside a sandbox pod (as in the docker provider). */
export const POD_WORKDIR = '/workspace';
export const POD_HOME = '/home/agent';
/** The one container of a sandbox pod. */
export const SANDBOX_CONTAINER = 'sandbox';

/** Labels every sandbox pod carries: the NetworkPolicy selects them, the orphan sweep lists them. */
export const POD_LABELS = {
  /** `"true"` on every sandbox pod (the chart's NetworkPolicy selects on it). */
  sandbox: 'caravel.dev/sandbox',
  /** The broker (release) that owns the pod: two brokers in one namespace never reap each other's. */
  owner: 'caravel.dev/sandbox-owner',
  /** 16 hex digits of the sandbox id's SHA-256 (an id may be longer than a label value). */
  key: 'caravel.dev/sandbox-key',
};
/** The sandbox id itself, as an annotation (no length or character limit that matters). */
export const SANDBOX_ID_ANNOTATION = 'caravel.dev/sandbox-id';

/** Keeps the container alive between sessions; each session is an exec into it. */
const KEEP_ALIVE = ['/bin/sh', '-c', 'trap "exit 0" TERM; while :; do sleep 3600 & wait $!; done'];

/** What the pod of one sandbox is made of. */
export interface SandboxPodInput {
  readonly sandboxId: string;
  readonly owner: string;
  readonly image: string;
  readonly user: FileOwner;
  /** The claim holding the broker's sandbox root; the pod mounts its own two directories of it. */
  readonly claimName: string;
  /** The sandbox's directories relative to the claim's root (`<id>/workspace`, `<id>/home`). */
  readonly subPaths: { readonly workspace: string; readonly home: string };
  /** Where the pod mounts them (default `POD_WORKDIR` and `POD_HOME`). */
  readonly mountPaths?: { readonly workdir: string; readonly home: string };
  /** The complete environment of every process in the pod (safe set, egress, the spec's). */
  readonly env: Readonly<Record<string, string>>;
  readonly limits: SandboxLimits;
  /** What the scheduler reserves (never above the limits). */
  readonly requests: { readonly cpus: number; readonly memoryBytes: number };
  /** The pod's writable scratch beside /tmp (logs, the container layer), in bytes. */
  readonly ephemeralStorageBytes: number;
  /** A RuntimeClass such as `gvisor`; absent: the cluster's default runtime. */
  readonly runtimeClassName?: string;
  readonly imagePullPolicy?: 'Always' | 'IfNotPresent' | 'Never';
}

/** 16 hex digits of the SHA-256 of a sandbox id. */
export function sandboxKey(sandboxId: string): string {
  return createHash('sha256').update(sandboxId).digest('hex').slice(0, 16);
}

/**
 * The pod name of a sandbox: a DNS label made of the id's safe characters and its key, so two
 * ids that differ only in case or punctuation never share a pod.
 */
export function podName(sandboxId: string): string {
  const readable = sandboxId
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 32)
    .replace(/-+$/, '');
  return `caravel-sbx-${readable ? `${readable}-` : ''}${sandboxKey(sandboxId)}`;
}

/** The label selector of every pod one broker owns. */
export function ownerSelector(owner: string): string {
  return `${POD_LABELS.sandbox}=true,${POD_LABELS.owner}=${owner}`;
}

function quantityOfCpus(cpus: number): string {
  return `${Math.max(1, Math.round(cpus * 1000))}m`;
}

function resources(input: SandboxPodInput): V1ResourceRequirements {
  const { limits } = input;
  return {
    requests: {
      cpu: quantityOfCpus(Math.min(input.requests.cpus, limits.maxCpus)),
      memory: String(Math.min(input.requests.memoryBytes, limits.maxMemoryBytes)),
    },
    limits: {
      cpu: quantityOfCpus(limits.maxCpus),
      memory: String(limits.maxMemoryBytes),
      'ephemeral-storage': String(input.ephemeralStorageBytes),
    },
  };
}

/**
 * The `POST /api/v1/namespaces/<ns>/pods` body for one sandbox: no service-account token, no
 * service links (no environment the broker did not choose), a non-root user with no privilege
 * escalation, every capability dropped, a read-only root, the RuntimeDefault seccomp profile, the
 * runtime class when one is configured (gVisor), and the limits as pod resources: CPU, memory
 * (its /tmp, a memory-backed emptyDir, counts in it) and ephemeral storage. The workspace and
 * home are the broker's own directories of the sandbox claim (subPath mounts), so the work
 * outlives the pod and host-side file operations see what commands see. File size and open files
 * are rlimits the session driver sets; the process count is the kubelet's `podPidsLimit`.
 */
export function sandboxPod(input: SandboxPodInput): V1Pod {
  const { uid, gid } = input.user;
  const mounts = input.mountPaths ?? { workdir: POD_WORKDIR, home: POD_HOME };
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: podName(input.sandboxId),
      labels: {
        [POD_LABELS.sandbox]: 'true',
        [POD_LABELS.owner]: input.owner,
        [POD_LABELS.key]: sandboxKey(input.sandboxId),
        'app.kubernetes.io/managed-by': 'caravel-sandbox-broker',
      },
      annotations: { [SANDBOX_ID_ANNOTATION]: input.sandboxId },
    },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      hostname: 'caravel-sandbox',
      ...(input.runtimeClassName ? { runtimeClassName: input.runtimeClassName } : {}),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: uid,
        runAsGroup: gid,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: SANDBOX_CONTAINER,
          image: input.image,
          ...(input.imagePullPolicy ? { imagePullPolicy: input.imagePullPolicy } : {}),
          command: KEEP_ALIVE,
          workingDir: mounts.workdir,
          env: Object.entries(input.env).map(([name, value]) => ({ name, value })),
          resources: resources(input),
          securityContext: {
            allowPrivilegeEscalation: false,
            privileged: false,
            readOnlyRootFilesystem: true,
            runAsNonRoot: true,
            capabilities: { drop: ['ALL'] },
            seccompProfile: { type: 'RuntimeDefault' },
          },
          volumeMounts: [
            { name: 'sandboxes', mountPath: mounts.workdir, subPath: input.subPaths.workspace },
            { name: 'sandboxes', mountPath: mounts.home, subPath: input.subPaths.home },
            { name: 'tmp', mountPath: '/tmp' },
          ],
        },
      ],
      volumes: [
        { name: 'sandboxes', persistentVolumeClaim: { claimName: input.claimName } },
        {
          name: 'tmp',
          emptyDir: { medium: 'Memory', sizeLimit: String(input.limits.maxTmpBytes) },
        },
      ],
    },
  };
}
