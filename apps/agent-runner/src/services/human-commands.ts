import type { ThreadMessageRow } from '@caravel/db';
import type { QueuedMessage } from '@caravel/middleware';
import type { Sandbox } from '@caravel/sandbox';
import { z } from 'zod';

/** How long a person's command may run before it is stopped (it then reports a timeout). */
export const HUMAN_COMMAND_TIMEOUT_MS = 120_000;

/** What a person's command did, kept on the message that tells the agent about it. */
export const humanStepSchema = z.object({
  humanStep: z.object({
    actor: z.string().min(1),
    callId: z.string().min(1),
    command: z.string(),
    output: z.string(),
    exitCode: z.number().int(),
    timedOut: z.boolean(),
  }),
});

export type HumanStep = z.infer<typeof humanStepSchema>['humanStep'];

/** The human step carried by a message, if it is one. */
export function humanStepOf(additionalKwargs: unknown): HumanStep | null {
  const caravel = (additionalKwargs as { caravel?: unknown } | undefined)?.caravel;
  const parsed = humanStepSchema.safeParse(caravel);
  return parsed.success ? parsed.data.humanStep : null;
}

/**
 * Runs a person's command (human takeover) in the thread's sandbox, between the agent's steps,
 * and turns it into the message the agent reads next: who ran what, and what it printed. The
 * step itself travels with the message, so the trajectory records it under the person's name,
 * also when a resumed run replays its history.
 */
export async function runHumanCommand(
  sandbox: Pick<Sandbox, 'exec'>,
  message: Pick<ThreadMessageRow, 'id' | 'author' | 'text'>,
): Promise<QueuedMessage> {
  const result = await sandbox
    .exec(message.text, { timeoutMs: HUMAN_COMMAND_TIMEOUT_MS })
    .catch((error: unknown) => ({
      exitCode: 127,
      output: `the command could not run: ${error instanceof Error ? error.message : String(error)}`,
      timedOut: false,
    }));
  const step: HumanStep = {
    actor: `human:${message.author}`,
    callId: `human-${message.id}`,
    command: message.text,
    output: result.output,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
  };
  const status = result.timedOut ? 'timed out' : `exit code ${result.exitCode}`;
  return {
    id: message.id,
    author: message.author,
    text:
      `${message.author} ran a command in the sandbox:\n$ ${message.text}\n` +
      `${result.output.trimEnd() || '(no output)'}\n[${status}]`,
    metadata: { humanStep: step },
  };
}

/**
 * What the agent reads of a person's command claimed before the runner restarted: whether it ran
 * is not known and its output was not kept, so it is not run again (a command may not be safe to
 * repeat); the person can run it again.
 */
export function commandOutputLost(
  message: Pick<ThreadMessageRow, 'id' | 'author' | 'text'>,
): QueuedMessage {
  return {
    id: message.id,
    author: message.author,
    text:
      `${message.author} asked to run a command in the sandbox:\n$ ${message.text}\n` +
      '[the runner restarted meanwhile: whether it ran is not known and its output was not kept; ' +
      'it was not run again]',
  };
}
