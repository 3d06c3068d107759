import {
  comparePatches,
  recordingOf,
  replayActions,
  replayFinished,
  replayTools,
  type ReplayRecording,
} from '@caravel/agent';
import { CARAVEL_NAMESPACE, uuidV5, type EnvelopeOf, type ReplayRunV1 } from '@caravel/contracts';
import { RunEventRepository } from '@caravel/db';
import { AppError, isAppError } from '@caravel/errors';
import { MessagePublisher, type Bus } from '@caravel/messaging';
import { BUS, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { ToolSandboxAdapter } from '@caravel/sandbox';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { ThreadSandboxService, type ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { STAYS } from '../services/hand-back.js';
import { LEASE_TTL_MS, LeaseKeeper } from '../services/lease-keeper.js';
import { ReplayEvents } from './replay-events.js';

type ReplayRequest = EnvelopeOf<typeof ReplayRunV1>;

const GIT_TIMEOUT_MS = 60_000;

/** One replay of a run at a time, whichever runner takes it. */
export function replayLeaseKey(runId: string): string {
  return `replay.${runId}`;
}

/** The sandbox thread of one replay: its own, never the thread's (which may hold work). */
export function replaySandboxThread(replayId: string): string {
  return uuidV5(`replay-sandbox:${replayId}`, CARAVEL_NAMESPACE);
}

/**
 * What a replay stopped by its runner's shutdown fails with: retryable DEPENDENCY_UNAVAILABLE
 * (`shutting_down`), so the bus hands the request back without using up its deliveries. Its
 * started event and the steps before the stop are out under ids derived from the replay, which the
 * next runner's replay publishes again (the bus and the index drop the repeats); the call in
 * flight was not reported, and no verdict was.
 */
export function replayHandedBack(request: ReplayRequest): AppError {
  const { runId, replayId } = request.data;
  return new AppError(
    'DEPENDENCY_UNAVAILABLE',
    `replay ${replayId} of run ${runId} is handed back: this runner is shutting down; the next runner replays it again`,
    { retryable: true, details: { reason: 'shutting_down', runId, replayId } },
  );
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Replays a finished run from the event log (`cmd.replay.run`): a fresh broker sandbox of its own
 * at the run's recorded base, the recorded tool calls re-executed with the real tools, each
 * observation and the final patch compared with the recording, every step and the verdict
 * published as `evt.replay.*`. A replay that cannot run (no trajectory, a base commit gone)
 * ends `failed` with the reason; a broker that does not answer sends the request back.
 */
@Injectable()
export class ReplayService {
  private readonly log = new Logger('Replay');

  constructor(
    @Inject(RunEventRepository) private readonly events: RunEventRepository,
    @Inject(ThreadSandboxService) private readonly sandboxes: ThreadSandboxService,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(LeaseKeeper) private readonly leases: LeaseKeeper,
    @Inject(BUS) private readonly bus: Bus,
    @Inject(RUNTIME) private readonly runtime: PlatformRuntime,
  ) {}

  /**
   * Replays once (see the class). When `stopping` aborts (this runner shuts down), the replay
   * stops before its next call, the call in flight given up unreported, and is handed back
   * ({@link replayHandedBack}): its sandbox is discarded and the next runner replays it again.
   */
  async replay(
    request: ReplayRequest,
    heartbeat: () => Promise<void>,
    stopping: AbortSignal = STAYS,
  ): Promise<void> {
    const { runId, replayId } = request.data;
    const holder = `${this.runtime.name}/replay/${replayId}`;
    const lease = await this.bus.leases.acquire(replayLeaseKey(runId), holder, LEASE_TTL_MS);
    if (!lease) {
      const current = await this.bus.leases.get(replayLeaseKey(runId));
      // The same replay on another runner (a redelivery while it works): that runner ends it.
      if (current?.holder.endsWith(`/replay/${replayId}`)) return;
      throw new AppError('LEASE_HELD', `run ${runId} is being replayed already`);
    }
    await this.leases.hold(lease, heartbeat, () => this.replayHeld(request, stopping));
  }

  private async replayHeld(request: ReplayRequest, stopping: AbortSignal): Promise<void> {
    const { runId, replayId } = request.data;
    const rows = await this.events.listByRun(runId);
    if (replayFinished(rows, replayId)) return;
    const events = new ReplayEvents(this.publisher, request, this.runtime.name);
    let recording: ReplayRecording;
    try {
      recording = recordingOf(runId, rows);
    } catch (error) {
      return this.failed(events, error);
    }
    const sandboxThread = replaySandboxThread(replayId);
    // A replay cut short by a crash left its sandbox half-used: start again from a fresh one.
    await this.sandboxes.discard(sandboxThread).catch(() => false);
    try {
      const workspace = await this.workspace(sandboxThread, recording, stopping);
      await this.run(events, workspace, recording, stopping);
    } catch (error) {
      if (stopping.aborted) throw replayHandedBack(request);
      if (isAppError(error) && error.retryable) throw error;
      await this.failed(events, error);
    } finally {
      await this.sandboxes.discard(sandboxThread).catch(() => false);
    }
  }

  private async run(
    events: ReplayEvents,
    workspace: ThreadWorkspace & { base: string },
    recording: ReplayRecording,
    stopping: AbortSignal,
  ): Promise<void> {
    const { actions } = recording;
    await events.started({
      baseCommit: workspace.base,
      branch: workspace.branch,
      calls: actions.length,
    });
    let published = Promise.resolve();
    const result = await replayActions(
      actions,
      replayTools(workspace.tools, {
        branch: workspace.branch,
        pullRequestUrl: `${workspace.origin ?? 'replay'}#${workspace.branch}`,
      }),
      workspace.tools,
      {
        onStep: (outcome) => {
          published = published.then(() => events.step(outcome));
        },
        signal: stopping,
      },
    ).finally(() => published);
    const comparison = comparePatches(recording.submission, result.patch);
    await events.completed(comparison, { recorded: recording.submission, replayed: result.patch });
    this.log.log(
      `replay ${events.tally.matched} matched, ${events.tally.differed} differed, ${events.tally.failed} failed; patch ${comparison.difference === 'none' ? 'identical' : comparison.difference}`,
    );
  }

  /** A sandbox of the replay's own, on the recorded branch at the recorded base commit. */
  private async workspace(
    sandboxThread: string,
    recording: ReplayRecording,
    signal: AbortSignal,
  ): Promise<ThreadWorkspace & { base: string }> {
    const branch = recording.branch ?? 'caravel/replay';
    const workspace = await this.sandboxes.forRun(sandboxThread, recording.repository, {
      branch,
      signal,
    });
    const base = recording.baseCommit;
    if (base === null || base === workspace.baseCommit)
      return { ...workspace, base: workspace.baseCommit };
    const checkout = await workspace.sandbox.exec(
      `git cat-file -e ${shellQuote(`${base}^{commit}`)} && git checkout --quiet -B ${shellQuote(branch)} ${shellQuote(base)}`,
      { timeoutMs: GIT_TIMEOUT_MS },
    );
    if (checkout.exitCode !== 0)
      throw new AppError(
        'PRECONDITION_FAILED',
        `the recorded base commit ${base} is not in the repository any more: ${checkout.output.trim().slice(0, 500)}`,
      );
    const tools = new ToolSandboxAdapter(workspace.sandbox, base);
    return { ...workspace, tools, baseCommit: base, base };
  }

  private async failed(events: ReplayEvents, error: unknown): Promise<void> {
    const message = isAppError(error) || error instanceof Error ? error.message : String(error);
    this.log.warn(`replay failed: ${message}`);
    await events.failed(message);
  }
}
