import { WAKEUP_BUDGET, type Actor } from '@caravel/contracts';
import { CI_WATCH_ACTOR } from '../ci-watch/ci-watch-notices.js';

/** The author of the synthetic messages wakeups send. */
export const WAKEUP_ACTOR: Actor = { externalId: 'caravel:wakeup', displayName: 'Caravel wakeup' };

/** What a woken run is told when the run that scheduled the wakeup gave no prompt. */
export const DEFAULT_WAKEUP_PROMPT =
  'This is the wakeup you scheduled. Check on the work you were waiting for and carry on.';

/** Whether a trigger was written by a person (wakeups and CI fix runs are not). */
export function isHumanTrigger(trigger: { author: Actor }): boolean {
  const author = trigger.author.externalId;
  return author !== WAKEUP_ACTOR.externalId && author !== CI_WATCH_ACTOR.externalId;
}

/** When a wakeup asked for `delayMinutes` from `now` fires: rounded up to the whole minute. */
export function wakeupDueAt(now: Date, delayMinutes: number): Date {
  const due = now.getTime() + delayMinutes * 60_000;
  return new Date(Math.ceil(due / 60_000) * 60_000);
}

/** Wakeups left once `counted` were scheduled since the last message from a person. */
export function wakeupsLeft(counted: number, budget = WAKEUP_BUDGET): number {
  return Math.max(0, budget - counted);
}
