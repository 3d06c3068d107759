import {
  SandboxAcquire,
  SandboxCallerAlive,
  SandboxDiscard,
  SandboxExecOutput,
  SandboxGitCommit,
  SandboxGitDiff,
  SandboxGitPush,
  SandboxPing,
  SandboxRecreate,
  SandboxRelease,
  SandboxTurnDiff,
  SandboxTurnSnapshot,
  type RepositoryRef,
} from '@caravel/contracts';
import { randomUUID } from 'node:crypto';
import type { TurnCheckpoint } from '../git/turn-checkpoint.js';
import type { TurnDiff } from '../git/turn-diff.js';
import { BrokerCallWatch } from './broker-call-watch.js';
import { OutputStreams } from './output-streams.js';
import { RpcSandbox } from './rpc-sandbox.js';
import {
  callSandbox,
  callSandboxOnce,
  callSandboxRepeatable,
  type SandboxRequester,
  type WatchedAttempt,
} from './sandbox-requester.js';

/** Setting up a new sandbox clones the repository: allow it time. */
const ACQUIRE_TIMEOUT_MS = 600_000;
/**
 * One attempt of an acquire: longer than the broker waits for a thread's lock (120 s), so a repeat
 * while a live broker still clones waits for that clone rather than starting another.
 */
const ACQUIRE_ATTEMPT_MS = 150_000;
/** Git work on the broker (commit, diff, push) may walk a large repository. */
const GIT_TIMEOUT_MS = 300_000;

/** What a thread asks the broker for. */
export interface SandboxAcquireInput {
  threadId: string;
  /** The branch the thread's work lives on (created on first setup). */
  branch: string;
  repository?: RepositoryRef;
  /** Replace the sandbox when it cannot be reached; reviewer threads only. */
  allowReplacement?: boolean;
  purpose?: 'agent' | 'reviewer';
  /** A new sandbox starts at the HEAD of this thread's sandbox instead of a fresh clone. */
  startFrom?: string;
  /** A new sandbox's branch starts at this pull request head of the repository (a fork's). */
  startRef?: string;
  /** A new sandbox's branch starts at the base even when the repository has the branch. */
  atBase?: boolean;
}

/**
 * The client side of the sandbox broker: acquire a thread's sandbox (an {@link RpcSandbox}),
 * recreate or release it, take turn checkpoints and do the git work that needs the host (commit,
 * diff against the base, push through the broker). While one of its commands runs, the client
 * answers the broker's liveness probe, so a client that dies mid-command has its command
 * abandoned rather than finishing unseen (and the probes' call ids tell it when the broker dies
 * mid-command instead: `BrokerCallWatch`); and it receives the output of commands run with an
 * `onOutput` listener while they run.
 */
export class SandboxBrokerClient {
  /** Streamed-output listeners of this client's running commands. */
  readonly streams = new OutputStreams();
  /**
   * This client's running commands and long requests (acquire, commit, push, diff, recreate),
   * failed soon after the broker running one is gone (an acquire is then sent again).
   */
  readonly calls = new BrokerCallWatch();

  private constructor(
    private readonly requester: SandboxRequester,
    private readonly callerId: string,
    private readonly served: { drain(): Promise<void> }[],
  ) {}

  /**
   * A client on this requester (a `Bus`), answering liveness probes and receiving streamed
   * output until {@link close}.
   */
  static async open(requester: SandboxRequester): Promise<SandboxBrokerClient> {
    const callerId = randomUUID();
    const served: { drain(): Promise<void> }[] = [];
    const client = new SandboxBrokerClient(requester, callerId, served);
    served.push(
      await requester.serve(SandboxCallerAlive.subjectFor(callerId), (raw) => {
        const probe = SandboxCallerAlive.parseRequest(raw);
        if (probe.callId && probe.everyMs) client.calls.heard(probe.callId, probe.everyMs);
        return Promise.resolve({ alive: true as const });
      }),
      await requester.serve(SandboxExecOutput.subjectFor(callerId), (raw) =>
        Promise.resolve(client.streams.deliver(SandboxExecOutput.parseRequest(raw))),
      ),
    );
    return client;
  }

  /** The thread's sandbox; with `signal`, given up at once when it aborts (its caller stops). */
  async acquire(input: SandboxAcquireInput, signal?: AbortSignal): Promise<RpcSandbox> {
    // Repeated when unanswered: a broker killed mid-acquire never answers, and NATS never says so;
    // each attempt is watched, so one whose broker died is sent again ~18 s later, not at 150 s.
    const handle = await callSandboxRepeatable(
      this.requester,
      SandboxAcquire,
      input.threadId,
      { ...input },
      {
        attemptMs: ACQUIRE_ATTEMPT_MS,
        totalMs: ACQUIRE_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      },
      () => this.watchedCall('sandbox setup'),
    );
    return new RpcSandbox(this.requester, handle, this.callerId, this.streams, this.calls);
  }

  /** A fresh sandbox for the thread; the broker keeps the old one for recovery. */
  async recreate(input: Omit<SandboxAcquireInput, 'allowReplacement' | 'purpose'>) {
    const call = this.watchedCall('recreate');
    const handle = await callSandboxOnce(
      this.requester,
      SandboxRecreate,
      input.threadId,
      { ...input, ...call.fields },
      ACQUIRE_TIMEOUT_MS,
      call.watch,
    );
    return new RpcSandbox(this.requester, handle, this.callerId, this.streams, this.calls);
  }

  async release(threadId: string): Promise<boolean> {
    return (await callSandbox(this.requester, SandboxRelease, threadId, { threadId })).released;
  }

  /** Deletes the thread's sandbox now (nothing kept); false when the thread had none. */
  async discard(threadId: string): Promise<boolean> {
    return (await callSandboxOnce(this.requester, SandboxDiscard, threadId, { threadId }))
      .discarded;
  }

  ping(threadId: string) {
    return callSandbox(this.requester, SandboxPing, threadId, { threadId });
  }

  snapshotTurn(threadId: string, messageId: string, repoPath?: string): Promise<TurnCheckpoint> {
    return callSandbox(this.requester, SandboxTurnSnapshot, threadId, {
      threadId,
      messageId,
      ...(repoPath ? { repoPath } : {}),
    });
  }

  turnDiff(
    threadId: string,
    from: string,
    to: string,
    options: { repoPath?: string; maxFiles?: number } = {},
  ): Promise<TurnDiff> {
    return callSandbox(this.requester, SandboxTurnDiff, threadId, {
      threadId,
      from,
      to,
      ...options,
    });
  }

  /** Stages and commits everything as the bot; null when there was nothing to commit. */
  async commitAll(threadId: string, message: string): Promise<string | null> {
    const call = this.watchedCall('commit');
    const request = { threadId, message, ...call.fields };
    const answer = await callSandboxOnce(
      this.requester,
      SandboxGitCommit,
      threadId,
      request,
      GIT_TIMEOUT_MS,
      call.watch,
    );
    return answer.commitSha;
  }

  /** Everything since `baseRef`, committed or not, new files included. */
  async diffSince(threadId: string, baseRef: string): Promise<string> {
    const call = this.watchedCall('diff');
    const request = { threadId, baseRef, ...call.fields };
    const answer = callSandbox(this.requester, SandboxGitDiff, threadId, request, GIT_TIMEOUT_MS);
    return (await call.watch(answer)).diff;
  }

  /**
   * Commits everything (when given `commitMessage`), then pushes the branch to the thread's
   * `repository` from the broker: the sandbox holds no credential and names no push target.
   */
  push(request: {
    threadId: string;
    branch: string;
    repository?: RepositoryRef | undefined;
    commitMessage?: string;
  }) {
    const { repository, ...rest } = request;
    const call = this.watchedCall('push');
    return callSandboxOnce(
      this.requester,
      SandboxGitPush,
      request.threadId,
      { ...rest, ...(repository ? { repository } : {}), ...call.fields },
      GIT_TIMEOUT_MS,
      call.watch,
    );
  }

  /**
   * A new long call: the fields that make its broker probe this client naming it, and the watch
   * that fails it once those probes stop (see {@link BrokerCallWatch}; a broker that sends none
   * leaves it unwatched).
   */
  private watchedCall(what: string): WatchedAttempt {
    const callId = randomUUID();
    return {
      fields: { callerId: this.callerId, callId },
      watch: (attempt) => this.calls.watch(callId, attempt, what),
    };
  }

  /** Stops answering liveness probes (commands still running are then abandoned). */
  async close(): Promise<void> {
    await Promise.all(this.served.map((subscription) => subscription.drain()));
  }
}
