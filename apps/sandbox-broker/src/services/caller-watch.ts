import { SandboxCallerAlive } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';

/** Probes that may fail in a row before the caller counts as gone. */
const MISSES_ALLOWED = 2;
/**
 * How long one probe waits. A vanished caller fails a probe at once (nobody serves its subject),
 * so this only bounds how long a live but busy caller may take to answer.
 */
const PROBE_TIMEOUT_MS = 10_000;

/**
 * Watches the client waiting on a long command (or other long request): every `everyMs` it asks
 * the client's `SandboxCallerAlive` subject, and calls `onGone` once the client stopped answering
 * (a runner killed mid-command). Without this the command would finish in a sandbox nobody reads,
 * and the run that resumes elsewhere would run it a second time. The probes name the call
 * (`callId`), so the client, in turn, fails the call soon after they stop (this broker killed
 * mid-call). The first probe goes as the watch starts, the next every `everyMs`.
 */
export async function whileCallerAlive<T>(
  bus: Bus,
  caller: { callerId?: string | undefined; callId?: string | undefined },
  everyMs: number,
  running: Promise<T>,
  onGone: () => Promise<void>,
): Promise<T> {
  const { callerId, callId } = caller;
  if (callerId === undefined) return running;
  // With the call's id, each probe also tells the caller that this broker still runs the call.
  const payload = { callerId, ...(callId ? { callId, everyMs } : {}) };
  let misses = 0;
  let probing = false;
  let gone = false;
  const probe = async (): Promise<void> => {
    if (probing || gone) return;
    probing = true;
    try {
      await bus.request(SandboxCallerAlive.subjectFor(callerId), payload, {
        timeoutMs: PROBE_TIMEOUT_MS,
      });
      misses = 0;
    } catch {
      misses += 1;
      if (misses >= MISSES_ALLOWED) {
        gone = true;
        await onGone().catch(() => undefined);
      }
    } finally {
      probing = false;
    }
  };
  // The first probe goes at once: a caller hears from the call as soon as this broker has it, so
  // its watch is armed even if this broker dies before the first interval.
  void probe();
  const timer = setInterval(() => void probe(), everyMs);
  try {
    return await running;
  } finally {
    clearInterval(timer);
  }
}
