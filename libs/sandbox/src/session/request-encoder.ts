import { randomBytes } from 'node:crypto';
import { sandboxError } from '../sandbox.errors.js';

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Quotes a value for bash so it is taken literally. */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Rejects environment maps bash could not take literally; returns the entries. */
export function validateEnv(env: Readonly<Record<string, string>>): [string, string][] {
  const entries = Object.entries(env);
  for (const [name, value] of entries) {
    if (!ENV_NAME.test(name) || name.startsWith('__caravel')) {
      throw sandboxError(
        'invalid_input',
        `invalid environment variable name ${JSON.stringify(name)}`,
      );
    }
    if (typeof value !== 'string' || value.includes('\0')) {
      throw sandboxError(
        'invalid_input',
        `environment variable ${name} must be a string without NUL`,
      );
    }
  }
  return entries;
}

/**
 * The script that exports per-command variables and records how to put the session's own
 * values back, so they last for one command only.
 */
export function perCommandEnvScript(env: Readonly<Record<string, string>>): string {
  return validateEnv(env)
    .map(
      ([name, value]) =>
        `if [ -n "\${${name}+x}" ]; then printf -v __caravel_q %q "$${name}"; ` +
        `__caravel_restore+="export ${name}=$__caravel_q;"; ` +
        `else __caravel_restore+="unset ${name};"; fi\nexport ${name}=${shellQuote(value)}\n`,
    )
    .join('');
}

/** A fresh random marker for one command's frame. */
export function newSentinel(): string {
  return `CARAVEL_${randomBytes(12).toString('hex')}`;
}

/** One framed request for the driver (see driver-script.ts). */
export function encodeRequest(request: {
  sentinel: string;
  command: string;
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  outputLimitBytes: number;
  /** Stream up to this many bytes of output while the command runs (0: no streaming). */
  streamLimitBytes?: number;
}): Buffer {
  if (request.command.includes('\0')) {
    throw sandboxError('invalid_input', 'a command cannot contain a NUL byte');
  }
  const command = Buffer.from(request.command, 'utf8');
  const env = Buffer.from(perCommandEnvScript(request.env), 'utf8');
  const seconds = (request.timeoutMs / 1000).toFixed(3);
  const header =
    `${request.sentinel} ${seconds} ${request.outputLimitBytes} ` +
    `${command.length} ${env.length} ${request.streamLimitBytes ?? 0}\n`;
  return Buffer.concat([Buffer.from(header), command, env]);
}
