import {
  observationDifference,
  type PatchComparison,
  type ReplayStepOutcome,
} from '@caravel/agent';
import {
  CARAVEL_NAMESPACE,
  ReplayFinishedV1,
  ReplayStartedV1,
  ReplayStepV1,
  causedBy,
  uuidV5,
  type DataOf,
  type EnvelopeOf,
  type ReplayRunV1,
} from '@caravel/contracts';
import type { MessagePublisher } from '@caravel/messaging';

/** An observation up to this size travels on `evt.replay.step` (bus messages are capped near 1 MiB). */
const MAX_OBSERVATION_CHARS = 16_000;
/** Patches up to this size travel on `evt.replay.finished`. */
const MAX_PATCH_CHARS = 256_000;

type Outcome = DataOf<typeof ReplayStepV1>['outcome'];

/** Tallies of a replay's calls by outcome. */
export interface ReplayTally {
  matched: number;
  differed: number;
  failed: number;
}

/**
 * How a replayed call compares: the same observation is `matched` (an error that repeats word
 * for word too); a call that errors now where the recording said something else is `failed`;
 * any other change is `differed`; a call with no recorded observation is `unrecorded`.
 */
export function outcomeOf(step: ReplayStepOutcome): Outcome {
  if (step.verdict === 'unrecorded') return 'unrecorded';
  if (step.verdict === 'same') return 'matched';
  return step.ok ? 'differed' : 'failed';
}

function capped(text: string | null, max: number): string | null {
  return text !== null && text.length > max
    ? `${text.slice(0, max)}\n[cut at ${max} characters]`
    : text;
}

/**
 * What one replay tells the bus, caused by its request and under ids derived from the replay (a
 * replay done again after a crash publishes the same ids, which the bus and the index drop).
 */
export class ReplayEvents {
  readonly tally: ReplayTally = { matched: 0, differed: 0, failed: 0 };
  private index = 0;

  constructor(
    private readonly publisher: MessagePublisher,
    private readonly request: EnvelopeOf<typeof ReplayRunV1>,
    private readonly runner: string,
  ) {}

  async started(details: { baseCommit: string; branch: string; calls: number }): Promise<void> {
    await this.publisher.publish(
      ReplayStartedV1,
      { ...this.scope(), runner: this.runner, ...details },
      this.options('started'),
    );
  }

  async step(step: ReplayStepOutcome): Promise<void> {
    const outcome = outcomeOf(step);
    if (outcome !== 'unrecorded') this.tally[outcome] += 1;
    const index = this.index++;
    const differs = outcome === 'differed' || outcome === 'failed';
    await this.publisher.publish(
      ReplayStepV1,
      {
        ...this.scope(),
        index,
        step: step.action.step,
        call: step.action.call,
        name: step.action.name,
        outcome,
        observation: capped(step.observation, MAX_OBSERVATION_CHARS) ?? '',
        ...(differs
          ? { difference: observationDifference(step.action.recorded ?? '', step.observation) }
          : {}),
      },
      this.options(`step:${index}`),
    );
  }

  async completed(
    comparison: PatchComparison,
    patches: { recorded: string | null; replayed: string | null },
  ): Promise<void> {
    await this.finish({
      status: 'completed',
      comparison: { ...comparison, summary: capped(comparison.summary, MAX_PATCH_CHARS) ?? '' },
      recordedPatch: capped(patches.recorded, MAX_PATCH_CHARS),
      replayedPatch: capped(patches.replayed, MAX_PATCH_CHARS),
    });
  }

  async failed(error: string): Promise<void> {
    await this.finish({
      status: 'failed',
      error: error.slice(0, 4000),
      comparison: null,
      recordedPatch: null,
      replayedPatch: null,
    });
  }

  private async finish(
    verdict: Pick<
      DataOf<typeof ReplayFinishedV1>,
      'status' | 'error' | 'comparison' | 'recordedPatch' | 'replayedPatch'
    >,
  ): Promise<void> {
    await this.publisher.publish(
      ReplayFinishedV1,
      { ...this.scope(), ...this.tally, ...verdict },
      this.options('finished'),
    );
  }

  private scope() {
    const { threadId, runId, replayId } = this.request.data;
    return { threadId, runId, replayId };
  }

  private options(what: string) {
    return {
      ...causedBy(this.request, this.runner),
      id: uuidV5(`replay-${what}:${this.request.data.replayId}`, CARAVEL_NAMESPACE),
    };
  }
}
