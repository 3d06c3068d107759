import { AppError, isAppError } from '@caravel/errors';

/** Probe intervals that may pass with no probe before the broker running a call counts as gone. */
const SILENT_PROBES = 10;
/** The shortest silence that counts, whatever the broker's probe interval. */
const MIN_SILENCE_MS = 15_000;
/**
 * After a silence, how long a last probe may still take: a process whose event loop was blocked
 * (the broker and this client share one when embedded) fires its overdue timers together, this
 * watch's before the broker's probe has made its round trip.
 */
const CONFIRM_MS = 3_000;
/** The `details.reason` of the error a watched call fails with when its broker went silent. */
const BROKER_GONE = 'broker_gone';

/** Whether `error` is a watched call's failure because the broker running it went silent. */
export function isBrokerGone(error: unknown): boolean {
  return (
    isAppError(error) &&
    error.code === 'DEPENDENCY_UNAVAILABLE' &&
    error.details['reason'] === BROKER_GONE
  );
}

/**
 * The calls of one client that a broker runs for a long time (a command, a commit or push, a diff,
 * a recreate), and the liveness probes the broker sends while it runs each (`SandboxCallerAlive`
 * with the call's id). A broker killed mid-call never answers it, and the request would wait out
 * its whole timeout (the command's plus slack, a git request's 300 s); once probes for a call have
 * started and then stop for ten intervals (at least 15 s), the call fails at once with
 * `broker_gone` (DEPENDENCY_UNAVAILABLE, retryable), and the next call goes to a broker that is
 * there. A broker that sends no call ids is never watched.
 */
export class BrokerCallWatch {
  private readonly calls = new Map<string, (everyMs: number) => void>();
  private probes = 0;

  /** A probe for `callId` arrived from the broker running it (sent every `everyMs`). */
  heard(callId: string, everyMs: number): void {
    const arm = this.calls.get(callId);
    if (!arm) return;
    this.probes += 1;
    arm(everyMs);
  }

  /** Probes heard for watched calls since this client opened. */
  get probesHeard(): number {
    return this.probes;
  }

  /** Calls being watched right now. */
  get size(): number {
    return this.calls.size;
  }

  /**
   * `running`'s outcome, unless the broker running it went silent first; `what` names the call in
   * that error (a command, a push…).
   */
  watch<T>(callId: string, running: Promise<T>, what = 'command'): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      let settled = false;
      const settle = (finish: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.calls.delete(callId);
        finish();
      };
      const gone = (silentMs: number): void =>
        settle(() =>
          reject(
            new AppError(
              'DEPENDENCY_UNAVAILABLE',
              `the sandbox broker running this ${what} stopped answering (no sign of it for ` +
                `${Math.round(silentMs / 1000)} s): it was stopped or restarted, and what the ` +
                `${what} did is unknown; run it again`,
              { retryable: true, details: { reason: BROKER_GONE } },
            ),
          ),
        );
      const arm = (everyMs: number): void => {
        clearTimeout(timer);
        const silenceMs = Math.max(MIN_SILENCE_MS, SILENT_PROBES * everyMs);
        timer = setTimeout(() => {
          timer = setTimeout(() => gone(silenceMs + CONFIRM_MS), CONFIRM_MS);
        }, silenceMs);
      };
      this.calls.set(callId, arm);
      running.then(
        (value) => settle(() => resolve(value)),
        // The request's own error, passed on as it came (an AppError from the bus).
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors
        (error: unknown) => settle(() => reject(error)),
      );
    });
  }
}
