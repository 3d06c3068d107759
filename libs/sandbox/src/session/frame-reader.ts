/** One command's result as the driver framed it. */
export interface DriverFrame {
  readonly kind: 'result';
  readonly sentinel: string;
  readonly exitCode: number;
  readonly timedOut: boolean;
  readonly totalBytes: number;
  readonly head: Buffer;
  readonly tail: Buffer;
}

/** Output a streaming command has written so far (sent before its result, in order). */
export interface DriverOutputFrame {
  readonly kind: 'output';
  readonly sentinel: string;
  readonly bytes: Buffer;
}

const HEADER = /^(\S+) (-?\d+) ([01]) (\d+) (\d+) (\d+)$/;
const OUTPUT_HEADER = /^(\S+) OUT (\d+)$/;
const NEWLINE = 0x0a;

/**
 * Incremental parser for the driver's stdout. Frames carry byte counts, so command output can
 * never be mistaken for framing; anything that does not parse is a protocol error, which the
 * session treats as fatal (the sandbox is then reported dead, not guessed at).
 */
export class FrameReader {
  private buffer: Buffer = Buffer.alloc(0);
  private ready = false;

  /** @param maxBuffered bytes that may wait unparsed before the stream is declared broken. */
  constructor(private readonly maxBuffered: number) {}

  /** Feeds bytes; returns the ready line's pid (once) and any complete frames. */
  push(chunk: Buffer): { readyPid?: number; frames: (DriverFrame | DriverOutputFrame)[] } {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    let readyPid: number | undefined;
    if (!this.ready) {
      readyPid = this.takeReady();
      if (readyPid === undefined) return { frames: [] };
    }
    const frames: (DriverFrame | DriverOutputFrame)[] = [];
    for (let frame = this.takeFrame(); frame; frame = this.takeFrame()) frames.push(frame);
    if (this.buffer.length > this.maxBuffered) {
      throw new Error(`driver output exceeds ${this.maxBuffered} unparsed bytes`);
    }
    return readyPid === undefined ? { frames } : { readyPid, frames };
  }

  private takeReady(): number | undefined {
    const end = this.buffer.indexOf(NEWLINE);
    if (end < 0) return undefined;
    const line = this.buffer.subarray(0, end).toString('utf8');
    const match = /^CARAVEL_READY (\d+)$/.exec(line);
    if (!match?.[1]) throw new Error(`unexpected driver greeting: ${JSON.stringify(line)}`);
    this.buffer = this.buffer.subarray(end + 1);
    this.ready = true;
    return Number(match[1]);
  }

  private takeFrame(): DriverFrame | DriverOutputFrame | undefined {
    const end = this.buffer.indexOf(NEWLINE);
    if (end < 0) return undefined;
    const line = this.buffer.subarray(0, end).toString('utf8');
    const output = OUTPUT_HEADER.exec(line);
    if (output) return this.takeOutput(output[1] ?? '', end + 1, Number(output[2]));
    const match = HEADER.exec(line);
    if (!match) throw new Error(`malformed frame header: ${JSON.stringify(line.slice(0, 200))}`);
    const [, sentinel = '', exit, timed, total, headLen, tailLen] = match;
    const bodyStart = end + 1;
    const bodyEnd = bodyStart + Number(headLen) + Number(tailLen);
    const trailer = Buffer.from(`${sentinel} END\n`);
    if (this.buffer.length < bodyEnd + trailer.length) return undefined;
    if (!this.buffer.subarray(bodyEnd, bodyEnd + trailer.length).equals(trailer)) {
      throw new Error(`frame ${sentinel} is not closed by its trailer`);
    }
    const headEnd = bodyStart + Number(headLen);
    const frame: DriverFrame = {
      kind: 'result',
      sentinel,
      exitCode: Number(exit),
      timedOut: timed === '1',
      totalBytes: Number(total),
      head: Buffer.from(this.buffer.subarray(bodyStart, headEnd)),
      tail: Buffer.from(this.buffer.subarray(headEnd, bodyEnd)),
    };
    this.buffer = this.buffer.subarray(bodyEnd + trailer.length);
    return frame;
  }

  private takeOutput(
    sentinel: string,
    start: number,
    length: number,
  ): DriverOutputFrame | undefined {
    if (this.buffer.length < start + length) return undefined;
    const bytes = Buffer.from(this.buffer.subarray(start, start + length));
    this.buffer = this.buffer.subarray(start + length);
    return { kind: 'output', sentinel, bytes };
  }
}
