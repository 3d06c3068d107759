import { SANDBOX_OUTPUT_PIECE_MAX_CHARS, SandboxExecOutput } from '@caravel/contracts';
import type { Bus } from '@caravel/messaging';

/** How long the caller may take to take one piece before the stream is given up. */
const PIECE_TIMEOUT_MS = 10_000;

/** The first piece of `text` that fits a message, never cutting a surrogate pair in two. */
function firstPiece(text: string): string {
  if (text.length <= SANDBOX_OUTPUT_PIECE_MAX_CHARS) return text;
  const code = text.charCodeAt(SANDBOX_OUTPUT_PIECE_MAX_CHARS - 1);
  const cut = code >= 0xd800 && code <= 0xdbff ? SANDBOX_OUTPUT_PIECE_MAX_CHARS - 1 : undefined;
  return text.slice(0, cut ?? SANDBOX_OUTPUT_PIECE_MAX_CHARS);
}

/**
 * Sends a running command's output to the caller that asked for it (`SandboxExecOutput`), in
 * order: one piece in flight at a time, and whatever the command writes meanwhile joins the next
 * piece, so a slow caller gets fewer, larger pieces rather than a backlog. The first piece the
 * caller refuses or does not answer stops the stream for good and drops what is buffered: a
 * caller that went away costs nothing more (its command is ended by the liveness watch).
 */
export class OutputRelay {
  private buffered = '';
  private seq = 0;
  private sending: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly bus: Bus,
    private readonly callerId: string,
    private readonly streamId: string,
  ) {}

  /** Queues output for the caller. */
  push(text: string): void {
    if (this.stopped || text === '') return;
    this.buffered += text;
    this.kick();
  }

  /** Resolves once everything pushed so far was delivered (or the stream stopped). */
  async finish(): Promise<void> {
    while (this.sending) await this.sending;
  }

  /** Stops sending and drops what is buffered. */
  stop(): void {
    this.stopped = true;
    this.buffered = '';
  }

  /** True once the caller refused or missed a piece, or {@link stop} was called. */
  get isStopped(): boolean {
    return this.stopped;
  }

  private kick(): void {
    if (this.sending || this.stopped || this.buffered === '') return;
    this.sending = this.pump().finally(() => {
      this.sending = undefined;
      this.kick();
    });
  }

  private async pump(): Promise<void> {
    while (this.buffered !== '' && !this.stopped) {
      const text = firstPiece(this.buffered);
      this.buffered = this.buffered.slice(text.length);
      const piece = { callerId: this.callerId, streamId: this.streamId, seq: this.seq, text };
      this.seq += 1;
      try {
        const answer = await this.bus.request(SandboxExecOutput.subjectFor(this.callerId), piece, {
          timeoutMs: PIECE_TIMEOUT_MS,
        });
        if (!SandboxExecOutput.parseResponse(answer).accepted) this.stop();
      } catch {
        this.stop();
      }
    }
  }
}
