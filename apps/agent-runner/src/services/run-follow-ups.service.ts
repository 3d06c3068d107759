import { ThreadMessageRepository } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import type { MessageQueue, QueuedMessage } from '@caravel/middleware';
import { BUS } from '@caravel/platform';
import type { Sandbox } from '@caravel/sandbox';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AGENT_RUNNER_CONFIG, type AgentRunnerConfig } from '../agent-runner.config.js';
import { runHumanCommand } from './human-commands.js';
import { InterruptWatch, listenForInterrupts } from './interrupt-watch.js';

/** A run's watch for an interrupting follow-up. */
export interface InterruptWatching {
  /** Aborted when a new message interrupts the run. */
  signal: AbortSignal;
  /** Watches no more (the run ended). */
  stop(): Promise<void>;
}

/** A run's view of its thread's follow-ups, as the agent factory takes them. */
export interface FollowUpQueue {
  queue: MessageQueue;
  /** Whether a follow-up's author may be read as instructions. */
  isTrustedAuthor: (author: string) => boolean;
}

/**
 * What reaches a thread while its run works: a person's message interrupts the run (dispatch
 * tells it at once, and a poll is the safety net); other follow-ups, and a person's commands
 * (human takeover), are taken by the run before its next model call.
 */
@Injectable()
export class RunFollowUps {
  private readonly log = new Logger('RunFollowUps');

  constructor(
    @Inject(BUS) private readonly bus: Bus,
    @Inject(ThreadMessageRepository) private readonly messages: ThreadMessageRepository,
    @Inject(AGENT_RUNNER_CONFIG) private readonly config: AgentRunnerConfig,
  ) {}

  /**
   * Watches the thread for an interrupting follow-up: on dispatch's notices and every
   * `config.run.interruptPollMs` (`RUN_INTERRUPT_POLL_MS`); without notices (the subscription failed) the poll still finds it.
   * A person's stop already waiting when the run starts interrupts it at once.
   */
  async watch(threadId: string): Promise<InterruptWatching> {
    const watch = new InterruptWatch(
      () => this.messages.interruptWaiting(threadId),
      this.config.run.interruptPollMs,
    );
    const notices = await listenForInterrupts(this.bus, threadId, watch).catch((error: unknown) => {
      this.log.warn(`thread ${threadId}: no interrupt notices, polling only: ${String(error)}`);
      return undefined;
    });
    // A stop stored before this run listened (its start was picked up as it was being stopped)
    // ends it now rather than at the poll; a person's waiting message is the agent's to read.
    const stops = await this.messages.waiting(threadId, ['stop']).catch(() => []);
    if (stops.length > 0) await watch.check();
    return {
      signal: watch.signal,
      stop: async () => {
        watch.stop();
        await notices?.drain().catch(() => undefined);
      },
    };
  }

  /** The run's queue: follow-ups taken by this run only, a person's commands run in `sandbox`. */
  queue(runId: string, sandbox: Pick<Sandbox, 'exec'>): FollowUpQueue {
    const trusted = new Set<string>();
    return {
      queue: {
        drain: async (threadId) => {
          const taken = await this.messages.take(threadId, runId);
          for (const message of taken) if (message.trusted) trusted.add(message.author);
          const drained: QueuedMessage[] = [];
          for (const message of taken) {
            // A person's command (human takeover) runs now, between the agent's steps.
            drained.push(
              message.kind === 'command'
                ? await runHumanCommand(sandbox, message)
                : { id: message.id, text: message.text, author: message.author },
            );
          }
          return drained;
        },
      },
      isTrustedAuthor: (author) => trusted.has(author),
    };
  }
}
