import { EventEmitter } from 'node:events';
import { PassThrough, type Duplex, type Writable } from 'node:stream';
import type { SessionProcess } from '../../session/bash-session.js';
import { DockerStreamDemuxer } from './docker-stream-demux.js';

/** Exit status reported when the engine cannot say how the exec ended. */
const UNKNOWN_EXIT = 255;

/**
 * A `docker exec` seen as a session process: writes go to the exec's stdin over the hijacked
 * connection; the multiplexed answer is split into stdout and stderr; when the stream ends, the
 * exit code is asked of the engine and `exit` is emitted. `BashSession.attach` drives the framed
 * session driver over it exactly as over a spawned child.
 */
export class DockerExecProcess extends EventEmitter implements SessionProcess {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  exitCode: number | null = null;
  readonly signalCode: NodeJS.Signals | null = null;
  private readonly demuxer = new DockerStreamDemuxer();
  private ended = false;

  /**
   * @param stream the hijacked, multiplexed exec stream (`exec.start({ hijack: true, stdin: true })`)
   * @param exitStatus asks the engine for the exec's exit code once the stream has ended
   */
  constructor(
    private readonly stream: Duplex,
    private readonly exitStatus: () => Promise<number | null>,
  ) {
    super();
    stream.on('data', (chunk: Buffer) => this.onData(chunk));
    stream.on('end', () => this.finish());
    stream.on('close', () => this.finish());
    stream.on('error', (error: Error) => {
      this.emit('error', error);
      this.finish();
    });
  }

  get stdin(): Writable {
    return this.stream;
  }

  /** Drops the connection (the engine then closes the exec's stdin). */
  disconnect(): void {
    this.stream.destroy();
  }

  private onData(chunk: Buffer): void {
    try {
      for (const frame of this.demuxer.push(chunk)) {
        if (frame.kind === 'stdout') this.stdout.write(frame.payload);
        else if (frame.kind === 'stderr') this.stderr.write(frame.payload);
      }
    } catch (error) {
      this.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
      this.stream.destroy();
    }
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.stdout.end();
    this.stderr.end();
    void this.exitStatus()
      .catch(() => null)
      .then((code) => {
        this.exitCode = code ?? UNKNOWN_EXIT;
        this.emit('exit', this.exitCode, null);
      });
  }
}
