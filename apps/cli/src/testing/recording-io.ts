import { Readable } from 'node:stream';
import type { CliIo } from '../commands/cli.js';

/** A `CliIo` for specs: what a command writes to stdout and stderr kept, no stdin, no signals. */
export function recordingIo(): CliIo & { written: string[]; errors: string[] } {
  const written: string[] = [];
  const errors: string[] = [];
  return {
    written,
    errors,
    out: (text) => written.push(text),
    err: (text) => errors.push(text),
    stdin: Readable.from([]),
    onSignal: () => undefined,
  };
}
