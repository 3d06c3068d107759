import { EventEmitter } from 'node:events';
import { PassThrough, Writable } from 'node:stream';
import type { Exec, V1Status } from '@kubernetes/client-node';
import type { SessionProcess } from '../../session/bash-session.js';

/** Exit status reported when the exec ended without a status (connection lost, pod deleted). */
const UNKNOWN_EXIT = 255;

/**
 * The exit code an exec's status carries (channel 3): 0 for `Success`, the `ExitCode` cause of a
 * `NonZeroExitCode` failure, or undefined when the status names none.
 */
export function execExitCode(status: V1Status): number | undefined {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((item) => item.reason === 'ExitCode');
  const code = Number(cause?.message);
  return Number.isInteger(code) ? code : undefined;
}

/**
 * What the client writes an output channel into: forwards to `target` until it has ended (the
 * client may still deliver frames it had buffered when this side let go), and leaves ending it to
 * the process (the client ends its streams on the status, before the socket has closed).
 */
function channelInto(target: PassThrough): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      if (!target.writableEnded) target.write(chunk);
      done();
    },
  });
}

/** The parts of the WebSocket an exec returns that this side uses. */
interface ExecSocket {
  close(): void;
  on(event: 'close', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** Where one exec runs. */
export interface ExecTarget {
  readonly exec: Exec;
  readonly namespace: string;
  readonly pod: string;
  readonly container: string;
}

/**
 * An exec in a sandbox pod seen as a session process (the Kubernetes counterpart of a `docker
 * exec`): its stdin goes to channel 0, channels 1 and 2 come out as stdout and stderr, and the
 * status on channel 3 gives the exit code; `exit` is emitted once the WebSocket has closed.
 * `BashSession.attach` drives the framed session driver over it as over a spawned child.
 */
export class KubernetesExecProcess extends EventEmitter implements SessionProcess {
  readonly stdout = new PassThrough();
  readonly stderr = new PassThrough();
  readonly stdin: Writable;
  exitCode: number | null = null;
  readonly signalCode: NodeJS.Signals | null = null;
  private socket: ExecSocket | undefined;
  private status: number | undefined;
  private ended = false;

  private constructor(private readonly input: PassThrough) {
    super();
    this.stdin = input;
  }

  /** Starts `command` in the target's container with stdin attached and no TTY. */
  static async start(
    target: ExecTarget,
    command: readonly string[],
  ): Promise<KubernetesExecProcess> {
    const process = new KubernetesExecProcess(new PassThrough());
    const socket = (await target.exec.exec(
      target.namespace,
      target.pod,
      target.container,
      [...command],
      channelInto(process.stdout),
      channelInto(process.stderr),
      process.input,
      false,
      (status) => {
        process.status = execExitCode(status) ?? UNKNOWN_EXIT;
      },
    )) as unknown as ExecSocket;
    process.socket = socket;
    socket.on('close', () => process.finish());
    socket.on('error', (error) => {
      process.emit('error', error);
      process.finish();
    });
    return process;
  }

  /** Drops the connection (the API server then closes the exec's stdin). */
  disconnect(): void {
    this.socket?.close();
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.stdout.end();
    this.stderr.end();
    this.input.destroy();
    this.exitCode = this.status ?? UNKNOWN_EXIT;
    this.emit('exit', this.exitCode, null);
  }
}
