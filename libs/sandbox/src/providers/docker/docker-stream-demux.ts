/** Which stream a frame of a multiplexed `docker exec`/`attach` stream belongs to. */
export type DockerStreamKind = 'stdin' | 'stdout' | 'stderr';

/** One payload of a multiplexed stream. */
export interface DockerStreamFrame {
  readonly kind: DockerStreamKind;
  readonly payload: Buffer;
}

const HEADER_BYTES = 8;
const KINDS: Record<number, DockerStreamKind> = { 0: 'stdin', 1: 'stdout', 2: 'stderr' };

/**
 * Incremental parser of Docker's multiplexed stream format (non-TTY exec and attach): each frame
 * is an 8-byte header (stream type in byte 0, three zero bytes, payload length as a big-endian
 * uint32) followed by the payload. Chunks may split headers and payloads anywhere. A header that
 * does not parse means the stream is not multiplexed (or is corrupt): that is an error, never a
 * guess, so the session is declared dead rather than fed garbage.
 */
export class DockerStreamDemuxer {
  private buffer: Buffer = Buffer.alloc(0);

  /** Feeds bytes; returns every frame they complete, in order. */
  push(chunk: Buffer): DockerStreamFrame[] {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const frames: DockerStreamFrame[] = [];
    while (this.buffer.length >= HEADER_BYTES) {
      const kind = KINDS[this.buffer[0] ?? -1];
      if (!kind || this.buffer.readUIntBE(1, 3) !== 0) {
        throw new Error(
          `malformed docker stream header: ${this.buffer.subarray(0, HEADER_BYTES).toString('hex')}`,
        );
      }
      const end = HEADER_BYTES + this.buffer.readUInt32BE(4);
      if (this.buffer.length < end) break;
      frames.push({ kind, payload: Buffer.from(this.buffer.subarray(HEADER_BYTES, end)) });
      this.buffer = this.buffer.subarray(end);
    }
    return frames;
  }

  /** Bytes of an incomplete frame still waiting (non-zero at the end means a truncated stream). */
  get pending(): number {
    return this.buffer.length;
  }
}

/** Builds one frame in the multiplexed format (the inverse of the demuxer; for tests and fakes). */
export function dockerStreamFrame(kind: DockerStreamKind, payload: Buffer | string): Buffer {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  header[0] = kind === 'stdin' ? 0 : kind === 'stdout' ? 1 : 2;
  header.writeUInt32BE(body.length, 4);
  return Buffer.concat([header, body]);
}
