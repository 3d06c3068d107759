import { Socket } from 'node:net';
import { describe } from '@jest/globals';
import { testEnvironment } from './test-environment.js';

export type RequiredService = 'nats' | 'postgres';

function hostPort(url: string, defaultPort: number): { host: string; port: number } {
  const parsed = new URL(url);
  return { host: parsed.hostname || '127.0.0.1', port: Number(parsed.port || defaultPort) };
}

const SERVICES: Record<RequiredService, () => { host: string; port: number; label: string }> = {
  nats: () => ({ ...hostPort(testEnvironment.TEST_NATS_URL, 4222), label: 'NATS' }),
  postgres: () => ({ ...hostPort(testEnvironment.TEST_DATABASE_URL, 5432), label: 'PostgreSQL' }),
};

function reachable(host: string, port: number, timeoutMs = 1500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new Socket();
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(port, host, () => done(true));
  });
}

export interface ServiceGate {
  /** Null when every service answered, else why the suite cannot run. */
  readonly missing: string | null;
  /** `describe` when the services are up; otherwise a skipped suite that says why. */
  describe(name: string, body: () => void): void;
}

/**
 * Checks that the services a medium test needs are reachable. Outside CI an unreachable service
 * skips the suite with "skipped: <reason>"; with CI=true it is a failure, never a skip.
 */
export async function serviceGate(services: readonly RequiredService[]): Promise<ServiceGate> {
  const problems: string[] = [];
  for (const name of services) {
    const { host, port, label } = SERVICES[name]();
    if (!(await reachable(host, port)))
      problems.push(`${label} is not reachable at ${host}:${port}`);
  }
  const missing = problems.length ? problems.join('; ') : null;
  if (missing && testEnvironment.CI) {
    throw new Error(`CI=true requires the real services: ${missing}`);
  }
  return {
    missing,
    describe(name, body) {
      if (!missing) {
        describe(name, body);
        return;
      }
      process.stdout.write(`skipped: ${name}: ${missing}\n`);
      describe.skip(`${name} (skipped: ${missing})`, body);
    },
  };
}
