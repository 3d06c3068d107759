import { randomUUID } from 'node:crypto';
import type { SandboxExecOutput } from '@caravel/contracts';

type OutputPiece = ReturnType<typeof SandboxExecOutput.parseRequest>;
type OutputAnswer = ReturnType<typeof SandboxExecOutput.parseResponse>;

interface OpenStream {
  readonly listener: (text: string) => void;
  nextSeq: number;
}

/**
 * A client's streamed-output listeners, by stream id. The broker's pieces for a stream arrive one
 * at a time in order; a piece for a stream nobody holds (its command ended or was given up) is
 * answered `accepted: false`, which stops the broker sending more.
 */
export class OutputStreams {
  private readonly open = new Map<string, OpenStream>();

  /** Registers a listener; `close` (call it in a `finally`) forgets it. */
  listen(listener: (text: string) => void): { streamId: string; close: () => void } {
    const streamId = randomUUID();
    this.open.set(streamId, { listener, nextSeq: 0 });
    return { streamId, close: () => this.open.delete(streamId) };
  }

  /** Hands one piece to its listener (a repeated piece is acknowledged, not shown twice). */
  deliver(piece: OutputPiece): OutputAnswer {
    const stream = this.open.get(piece.streamId);
    if (!stream) return { accepted: false };
    if (piece.seq < stream.nextSeq) return { accepted: true };
    stream.nextSeq = piece.seq + 1;
    try {
      stream.listener(piece.text);
    } catch {
      // A display that fails must not stop the command or the stream.
    }
    return { accepted: true };
  }

  /** How many streams are open (none once every streamed command has returned). */
  get size(): number {
    return this.open.size;
  }
}
