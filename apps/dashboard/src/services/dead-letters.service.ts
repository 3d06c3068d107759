import type { Bus, DeadLetter, DeadLetterReplay, DeadLetterSelection } from '@caravel/messaging';
import { BUS } from '@caravel/platform';
import { Inject, Injectable, Logger } from '@nestjs/common';

/** A dead letter as the API shows it: dates as ISO strings. */
export interface DeadLetterView extends Omit<DeadLetter, 'recordedAt' | 'replayedAt'> {
  recordedAt: string;
  replayedAt: string | null;
}

/** What one replay did, per letter. */
export interface DeadLetterReplayView {
  id: string;
  consumer: string;
  subject: string;
  outcome: DeadLetterReplay['outcome'];
}

function view(letter: DeadLetter): DeadLetterView {
  return {
    ...letter,
    recordedAt: letter.recordedAt.toISOString(),
    replayedAt: letter.replayedAt?.toISOString() ?? null,
  };
}

/**
 * The operator's view of the messages the platform gave up on, and the way back: a replay hands
 * the selected letters to the consumers that gave up on them (see docs/messaging.md, Dead letters).
 */
@Injectable()
export class DeadLettersService {
  private readonly logger = new Logger(DeadLettersService.name);

  constructor(@Inject(BUS) private readonly bus: Bus) {}

  async list(selection: DeadLetterSelection): Promise<DeadLetterView[]> {
    return (await this.bus.deadLetters(selection)).map(view);
  }

  async replay(selection: DeadLetterSelection): Promise<DeadLetterReplayView[]> {
    const replays = await this.bus.replayDeadLetters(selection);
    const counts = new Map<string, number>();
    for (const { outcome } of replays) counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
    this.logger.log(
      `dead-letter replay: ${replays.length} selected (${[...counts].map(([o, n]) => `${n} ${o}`).join(', ') || 'none'})`,
    );
    return replays.map(({ letter, outcome }) => ({
      id: letter.id,
      consumer: letter.consumer,
      subject: letter.subject,
      outcome,
    }));
  }
}
