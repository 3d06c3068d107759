import { setTimeout as sleep } from 'node:timers/promises';
import type { CoreV1Api, V1Pod } from '@kubernetes/client-node';
import { sandboxError, sandboxErrorReason } from '../../sandbox.errors.js';
import { apiStatus, kubernetesError, withDeadline } from './kubernetes-errors.js';

/** How long the pod calls may take. */
export interface PodTiming {
  /** One API request (default 15 s). */
  readonly requestTimeoutMs: number;
  /** From create to Running (default 120 s: an image pull fits). */
  readonly startTimeoutMs: number;
  /** Between two reads of a starting pod (default 500 ms). */
  readonly pollMs: number;
}

export const DEFAULT_POD_TIMING: PodTiming = {
  requestTimeoutMs: 15_000,
  startTimeoutMs: 120_000,
  pollMs: 500,
};

/** Why a pod is not running, as `kubectl get pod` would say it: phase, then the first reason. */
export function podCondition(pod: V1Pod): string {
  const phase = pod.status?.phase ?? 'Unknown';
  const container = pod.status?.containerStatuses?.[0]?.state;
  const waiting = container?.waiting ?? container?.terminated;
  const why = waiting?.reason ?? pod.status?.reason;
  const message = waiting?.message ?? pod.status?.message;
  return [phase, why ? ` (${why}${message ? `: ${message}` : ''})` : ''].join('');
}

function isReady(pod: V1Pod): boolean {
  if (pod.status?.phase !== 'Running') return false;
  return (pod.status.containerStatuses ?? []).every((status) => status.state?.running);
}

/**
 * The pod calls of the provider in one namespace, each bounded in time and mapped to coded
 * sandbox errors (see `kubernetesError`).
 */
export class KubernetesPods {
  constructor(
    private readonly api: CoreV1Api,
    readonly namespace: string,
    private readonly timing: PodTiming,
  ) {}

  create(pod: V1Pod, sandboxId: string): Promise<V1Pod> {
    return this.call(`creating pod ${pod.metadata?.name}`, sandboxId, () =>
      this.api.createNamespacedPod({ namespace: this.namespace, body: pod }),
    );
  }

  /** The pod, or undefined when it does not exist. */
  async read(name: string, sandboxId?: string): Promise<V1Pod | undefined> {
    const doing = `reading pod ${name}`;
    return withDeadline(
      doing,
      this.timing.requestTimeoutMs,
      this.api.readNamespacedPod({ name, namespace: this.namespace }),
    ).catch((error: unknown) => {
      if (apiStatus(error) === 404) return undefined;
      throw this.mapped(doing, error, sandboxId);
    });
  }

  /** Deletes the pod at once (no grace); a pod already gone is fine. */
  async delete(name: string, sandboxId?: string): Promise<void> {
    const doing = `deleting pod ${name}`;
    await withDeadline(
      doing,
      this.timing.requestTimeoutMs,
      this.api.deleteNamespacedPod({ name, namespace: this.namespace, gracePeriodSeconds: 0 }),
    ).catch((error: unknown) => {
      if (apiStatus(error) !== 404) throw this.mapped(doing, error, sandboxId);
    });
  }

  async list(labelSelector: string): Promise<V1Pod[]> {
    const list = await this.call(`listing pods (${labelSelector})`, undefined, () =>
      this.api.listNamespacedPod({ namespace: this.namespace, labelSelector }),
    );
    return list.items;
  }

  /**
   * Waits until the pod runs; fails naming its phase and reason when it ended (Failed,
   * Succeeded), vanished, or still is not running after `startTimeoutMs`.
   */
  async waitRunning(name: string, sandboxId: string): Promise<V1Pod> {
    const deadline = Date.now() + this.timing.startTimeoutMs;
    for (;;) {
      const pod = await this.read(name, sandboxId);
      if (!pod) {
        throw sandboxError('provider_unavailable', `sandbox pod ${name} vanished while starting`, {
          id: sandboxId,
        });
      }
      if (isReady(pod)) return pod;
      const phase = pod.status?.phase;
      if (phase === 'Failed' || phase === 'Succeeded' || Date.now() >= deadline) {
        const still = phase === 'Failed' || phase === 'Succeeded' ? 'ended' : 'is not running';
        throw sandboxError(
          'provider_unavailable',
          `sandbox pod ${name} ${still} after ${this.timing.startTimeoutMs} ms at most: ${podCondition(pod)}`,
          { id: sandboxId, phase: phase ?? 'Unknown' },
        );
      }
      await sleep(this.timing.pollMs);
    }
  }

  private async call<T>(
    doing: string,
    sandboxId: string | undefined,
    call: () => Promise<T>,
  ): Promise<T> {
    try {
      return await withDeadline(doing, this.timing.requestTimeoutMs, call());
    } catch (error) {
      throw this.mapped(doing, error, sandboxId);
    }
  }

  private mapped(doing: string, error: unknown, sandboxId: string | undefined): unknown {
    // A deadline already is a coded error.
    if (sandboxErrorReason(error) !== undefined) return error;
    return kubernetesError(doing, error, sandboxId);
  }
}
