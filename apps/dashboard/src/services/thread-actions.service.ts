import {
  AgentChat,
  repositoryRef,
  SandboxRecreate,
  StopThreadV1,
  threadBranch,
  TriggerReceivedV1,
  type SandboxHandle,
} from '@caravel/contracts';
import { ThreadRepository } from '@caravel/db';
import { AppError } from '@caravel/errors';
import { MessagePublisher, type Bus } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import { Inject, Injectable } from '@nestjs/common';
import { randomUUID } from 'node:crypto';

/** How long the chat agent may take to answer (it may read several files first). */
const CHAT_TIMEOUT_MS = 180_000;
/** A new sandbox is a fresh clone and its setup. */
const RECREATE_TIMEOUT_MS = 300_000;

/** A person's message or command for a thread (human takeover). */
export interface ThreadAction {
  /** Who acts, as they will be named in the thread's history and trajectory. */
  author: string;
  kind: 'message' | 'command';
  text: string;
}

/**
 * A person acting in a thread from the dashboard or `caravel attach`: a message joins the thread
 * like any follow-up (before the running agent's next model call, or as the next run); a command
 * runs in the thread's sandbox between the agent's steps, recorded under the person's name.
 */
@Injectable()
export class ThreadActionsService {
  constructor(
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(BUS) private readonly bus: Bus,
  ) {}

  /**
   * A person asks for a fresh sandbox for the thread (its old one was lost or is broken): the
   * broker binds a new one and keeps the old one, retired, for recovery. Refused while a run
   * works in the thread, so no run loses its sandbox midway.
   */
  async recreateSandbox(threadId: string): Promise<SandboxHandle> {
    const thread = await this.threads.get(threadId);
    if (!thread) throw new AppError('NOT_FOUND', `no thread ${threadId}`);
    if (thread.activeRunId) {
      throw new AppError(
        'CONFLICT',
        `thread ${threadId} has a run in progress (${thread.activeRunId}); recreate its sandbox once it ends`,
      );
    }
    const repository = repositoryRef.safeParse(thread.repository);
    const answer = await this.bus.request(
      SandboxRecreate.subjectFor(threadId),
      {
        threadId,
        branch: threadBranch(threadId),
        ...(repository.success ? { repository: repository.data } : {}),
      },
      { timeoutMs: RECREATE_TIMEOUT_MS },
    );
    return SandboxRecreate.parseResponse(answer);
  }

  /** Asks the read-only chat agent about the thread's code (it reads, never writes). */
  async chat(
    threadId: string,
    question: { author: string; text: string },
  ): Promise<{ answer: string; toolCalls: number }> {
    if (!(await this.threads.get(threadId)))
      throw new AppError('NOT_FOUND', `no thread ${threadId}`);
    const answer = await this.bus.request(
      AgentChat.subjectFor(threadId),
      { threadId, question: question.text, author: question.author },
      { timeoutMs: CHAT_TIMEOUT_MS },
    );
    return AgentChat.parseResponse(answer);
  }

  /**
   * A person stops the thread's work: dispatch cancels its waiting run or interrupts its active
   * one (no failure reply, no next run) and says so once in the thread's channel. Accepted
   * whatever runs: stopping an idle thread does nothing.
   */
  async stop(threadId: string, author: string): Promise<{ requestId: string }> {
    if (!(await this.threads.get(threadId)))
      throw new AppError('NOT_FOUND', `no thread ${threadId}`);
    const requestId = randomUUID();
    await this.publisher.publish(
      StopThreadV1,
      { threadId, source: 'synthetic', requestedBy: { externalId: author }, requestId },
      { id: requestId },
    );
    return { requestId };
  }

  async act(threadId: string, action: ThreadAction): Promise<{ triggerId: string }> {
    const thread = await this.threads.get(threadId);
    if (!thread) throw new AppError('NOT_FOUND', `no thread ${threadId}`);
    const triggerId = randomUUID();
    await this.publisher.publish(
      TriggerReceivedV1,
      {
        threadId,
        source: 'synthetic',
        deliveryId: `dashboard-${triggerId}`,
        author: { externalId: action.author },
        text: action.text,
        trusted: true,
        kind: action.kind,
      },
      { id: triggerId },
    );
    return { triggerId };
  }
}
