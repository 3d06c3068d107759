/** How {@link LiveOutput} batches and caps a run's live command output. */
export interface LiveOutputLimits {
  /** A piece is sent at the latest this long after its first byte arrived. */
  flushMs: number;
  /** A piece is sent as soon as it holds this many characters. */
  pieceChars: number;
  /** Characters sent per run; after that one last piece says the rest is in the observations. */
  runChars: number;
}

export const LIVE_OUTPUT_LIMITS: LiveOutputLimits = {
  flushMs: 250,
  pieceChars: 16 * 1024,
  runChars: 1024 * 1024,
};

/** One piece as published (`RunOutputV1`). */
export interface LiveOutputPiece {
  piece: number;
  text: string;
  capped: boolean;
}

const CAPPED_NOTE =
  '\n[live output stops here: this run sent its share; every command result is in its step]\n';

/**
 * The output of the agent's running commands, batched into pieces for a live view: a piece is
 * sent when it is big enough or `flushMs` after its first byte, in order, one send at a time.
 * Best effort: a send that fails is reported and dropped (the step's observation is the record),
 * and a run's live output stops, with one note, at `runChars`.
 */
export class LiveOutput {
  private buffer = '';
  private timer: NodeJS.Timeout | undefined;
  private sending: Promise<void> = Promise.resolve();
  private nextPiece = 0;
  private sentChars = 0;
  private capped = false;
  private closed = false;

  constructor(
    private readonly send: (piece: LiveOutputPiece) => Promise<void>,
    private readonly onSendFailed: (error: unknown) => void,
    private readonly limits: LiveOutputLimits = LIVE_OUTPUT_LIMITS,
  ) {}

  /** Output of the running command, as the sandbox streams it. */
  push(text: string): void {
    if (this.closed || this.capped || text === '') return;
    this.buffer += text;
    if (this.buffer.length >= this.limits.pieceChars) this.flush(false);
    if (this.buffer !== '') this.timer ??= setTimeout(() => this.flush(true), this.limits.flushMs);
  }

  /** Sends what is buffered and waits for every send; later output is ignored. */
  async close(): Promise<void> {
    this.flush(true);
    this.closed = true;
    await this.sending;
  }

  /** Sends the full pieces buffered, and with `all` the rest too. */
  private flush(all: boolean): void {
    if (all) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const minimum = all ? 1 : this.limits.pieceChars;
    while (this.buffer.length >= minimum && !this.capped) {
      const room = this.limits.runChars - this.sentChars;
      const size = Math.min(this.buffer.length, this.limits.pieceChars, room);
      const text = this.buffer.slice(0, size);
      this.buffer = this.buffer.slice(size);
      this.sentChars += size;
      this.capped = this.sentChars >= this.limits.runChars;
      this.enqueue({
        piece: this.nextPiece++,
        text: this.capped ? `${text}${CAPPED_NOTE}` : text,
        capped: this.capped,
      });
    }
    if (this.capped) {
      this.buffer = '';
      clearTimeout(this.timer);
    }
  }

  private enqueue(piece: LiveOutputPiece): void {
    this.sending = this.sending.then(() => this.send(piece).catch(this.onSendFailed));
  }
}
