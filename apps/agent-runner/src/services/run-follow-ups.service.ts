import { ThreadMessageRepository } from '@caravel/db';
import type { Bus } from '@caravel/messaging';
import type { MessageQueue, QueuedMessage } from '@caravel/middleware';
import { BUS } from '@caravel/platform';
import type { Sandbox } from '@caravel/sandbox';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AGENT_RUNNER_CONFIG, type AgentRunnerConfig } from '../agent-runner.config.js';
import { commandOutputLost, runHumanCommand } from './human-commands.js';
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

  /**
   * The run's queue: follow-ups claimed by this run only, a person's commands run in `sandbox`.
   * A message claimed before and not yet in the conversation is handed over again; a command
   * runs once: handed over again, it brings the output it had in this process, or says that a
   * restart lost it (whether it ran is then not known, so it is not run a second time).
   */
  queue(runId: string, sandbox: Pick<Sandbox, 'exec'>): FollowUpQueue {
    const trusted = new Set<string>();
    const ran = new Map<string, QueuedMessage>();
    return {
      queue: {
        drain: async (threadId, inConversation) => {
          const claimed = await this.messages.claim(threadId, runId);
          const drained: QueuedMessage[] = [];
          for (const message of claimed) {
            if (!message.fresh && inConversation(message.id)) continue;
            if (message.trusted) trusted.add(message.author);
            if (message.kind !== 'command') {
              drained.push({ id: message.id, text: message.text, author: message.author });
              continue;
            }
            // A person's command (human takeover) runs now, between the agent's steps.
            let step = ran.get(message.id);
            if (!step && message.fresh)
              ran.set(message.id, (step = await runHumanCommand(sandbox, message)));
            drained.push(step ?? commandOutputLost(message));
          }
          return drained;
        },
      },
      isTrustedAuthor: (author) => trusted.has(author),
    };
  }

  /**
   * Settles what the run claimed once it ends, by what its last checkpoint holds (`held`, the
   * follow-ups' ids): those and every command are taken for good, the other messages wait for
   * the thread's next run. A failure is logged: the claims stay, a resumed run is handed them
   * again, and a run that ends without resuming has them settled by dispatch.
   */
  async settle(threadId: string, runId: string, held: () => Promise<readonly string[]>) {
    try {
      const released = await this.messages.settle(threadId, runId, await held());
      if (released > 0)
        this.log.log(
          `run ${runId}: ${released} follow-up(s) it had not read wait for the next run`,
        );
    } catch (error) {
      this.log.warn(`run ${runId}: its follow-ups stay claimed: ${String(error)}`);
    }
  }
}
