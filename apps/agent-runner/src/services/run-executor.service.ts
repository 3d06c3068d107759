import {
  CARAVEL_NAMESPACE,
  RunFinishedV1,
  RunStartedV1,
  RunStepV1,
  SandboxPing,
  causedBy,
  uuidV5,
  type EnvelopeOf,
  type StartRunV1,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { MessagePublisher, type Bus, type Lease } from '@caravel/messaging';
import { BUS, RUNTIME, type PlatformRuntime } from '@caravel/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';

const LEASE_TTL_MS = 60_000;
const SANDBOX_TIMEOUT_MS = 5_000;

/** Event ids derive from the run, so a redelivered start command re-publishes the same events. */
function eventId(runId: string, what: string): string {
  return uuidV5(`${what}:${runId}`, CARAVEL_NAMESPACE);
}

/**
 * Executes a run while holding the thread's lease. For now the run is a no-op that checks the
 * thread's sandbox over request/reply and reports one step; the agent issue replaces the body.
 */
@Injectable()
export class RunExecutorService {
  private readonly log = new Logger('RunExecutor');

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(RUNTIME) private readonly runtime: PlatformRuntime,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
  ) {}

  async execute(
    command: EnvelopeOf<typeof StartRunV1>,
    heartbeat: () => Promise<void>,
  ): Promise<void> {
    const { threadId, runId } = command.data;
    const lease = await this.bus.leases.acquire(
      `thread.${threadId}`,
      this.runtime.name,
      LEASE_TTL_MS,
    );
    if (!lease) {
      throw new AppError('LEASE_HELD', `thread ${threadId} already has an active run`);
    }
    try {
      const options = (what: string) => ({
        ...causedBy(command, this.runtime.name),
        id: eventId(runId, what),
      });
      await this.publisher.publish(
        RunStartedV1,
        { threadId, runId, runner: this.runtime.name },
        options('started'),
      );
      await heartbeat();
      const observation = await this.checkSandbox(threadId);
      await this.publisher.publish(
        RunStepV1,
        { threadId, runId, step: 0, thought: 'no-op run', action: 'sandbox.ping', observation },
        options('step-0'),
      );
      await this.publisher.publish(
        RunFinishedV1,
        {
          threadId,
          runId,
          outcome: 'completed',
          exitStatus: 'submitted',
          summary: 'no-op run completed',
        },
        options('finished'),
      );
    } finally {
      await this.release(lease);
    }
  }

  private async checkSandbox(threadId: string): Promise<string> {
    try {
      const raw = await this.bus.request(
        SandboxPing.subjectFor(threadId),
        { threadId },
        { timeoutMs: SANDBOX_TIMEOUT_MS },
      );
      const health = SandboxPing.parseResponse(raw);
      return `sandbox provider=${health.provider} alive=${health.alive}`;
    } catch (error) {
      return `sandbox broker did not answer: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  private async release(lease: Lease): Promise<void> {
    if (!(await this.bus.leases.release(lease))) {
      this.log.warn(`lease ${lease.key} was lost before release`);
    }
  }
}
