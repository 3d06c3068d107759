/** Where in a run the agent runner is killed (`kill -9`). */
export type RunnerKillPoint = 'model-call' | 'command';

/** How big and how long each scenario is. */
export interface ChaosProfile {
  readonly name: 'short' | 'long';
  /** Ingress processes the deliveries are spread over. */
  readonly ingressReplicas: number;
  readonly dispatchReplicas: number;
  readonly retries: {
    /** GitHub deliveries and Slack events, each a thread of its own. */
    readonly requests: number;
    /** Rounds of the same delivery to every ingress at once, before the window passes. */
    readonly rounds: number;
    /**
     * `shrink`: the streams' duplicate window is set to `windowMs` on the run's own server (the
     * code has no setting for it) and waited out; `wait`: the code's own 2-minute window, waited
     * out in real time.
     */
    readonly duplicateWindow: 'shrink' | 'wait';
    readonly windowMs: number;
  };
  /** Deliveries of each burst, and how many are in flight at once. */
  readonly burst: { readonly deliveries: number; readonly concurrency: number };
  /** How long nats-server stays dead after its `kill -9`. */
  readonly natsDownMs: number;
  /**
   * How long PostgreSQL stays cut, one burst per entry. Over about 160 s outlasts dispatch's
   * retries of a trigger (deliveries after 1 s, 5 s, 30 s and 2 min).
   */
  readonly postgresCutsMs: readonly number[];
  readonly fuzz: {
    readonly requests: number;
    /** Valid deliveries sent during the fuzzing, which must be taken in time. */
    readonly alongside: number;
    /** Send one body over ingress's 25 MB cap. */
    readonly oversized: boolean;
  };
  readonly runnerKills: readonly RunnerKillPoint[];
  /**
   * Which of HOSTILE_WORKSPACES go through a run: all eleven, or the first of each kind (a trap
   * host git would spring, one only isolation stops, one that breaks the repository).
   */
  readonly hostileWorkspaces: 'all' | 'one of each kind';
  /** How long a scenario waits for what it sent to be processed. */
  readonly settleMs: number;
}

export const PROFILES: Record<ChaosProfile['name'], ChaosProfile> = {
  short: {
    name: 'short',
    ingressReplicas: 3,
    dispatchReplicas: 1,
    retries: { requests: 1, rounds: 2, duplicateWindow: 'shrink', windowMs: 2_000 },
    burst: { deliveries: 40, concurrency: 8 },
    natsDownMs: 2_000,
    postgresCutsMs: [4_000],
    fuzz: { requests: 60, alongside: 5, oversized: false },
    runnerKills: ['command'],
    hostileWorkspaces: 'one of each kind',
    settleMs: 90_000,
  },
  long: {
    name: 'long',
    ingressReplicas: 3,
    dispatchReplicas: 2,
    retries: { requests: 4, rounds: 10, duplicateWindow: 'wait', windowMs: 185_000 },
    burst: { deliveries: 200, concurrency: 20 },
    natsDownMs: 10_000,
    postgresCutsMs: [30_000, 180_000],
    fuzz: { requests: 1_000, alongside: 40, oversized: true },
    runnerKills: ['model-call', 'command'],
    hostileWorkspaces: 'all',
    settleMs: 300_000,
  },
};
