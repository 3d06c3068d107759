/** Host-side timing of a session, shared by the providers. */
export interface SessionTiming {
  /** Grace between TERM and KILL of a timed-out command's process group. */
  readonly killGraceMs: number;
  /** How long a new session may take to greet. */
  readonly startTimeoutMs: number;
  /** Slack past timeout + grace before an unanswered session is declared dead. */
  readonly watchdogSlackMs: number;
}

export const DEFAULT_SESSION_TIMING: SessionTiming = {
  killGraceMs: 2_000,
  startTimeoutMs: 15_000,
  watchdogSlackMs: 15_000,
};
