// Processes for the newcomer walk-through: shell commands run as a user types them (bash -c, in
// the clone, a plain environment), servers in the background in their own process group.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** What a user's shell has: PATH, HOME, TERM. Nothing of this process's own configuration. */
export function userEnv(extra = {}) {
  const { PATH = '', HOME = '/root', TERM = 'dumb' } = process.env;
  return { PATH, HOME, TERM, ...extra };
}

/** Whether 127.0.0.1:`port` can be listened on now. */
export function portFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** `wanted` when free, else a free port (what a newcomer whose port is taken would choose). */
export async function portFor(wanted) {
  if (await portFree(wanted)) return wanted;
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `command` with bash to its end (or kills it after `timeoutMs`); output kept and echoed. */
export function sh(command, { cwd, env, timeoutMs, echo }) {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: 'pipe' });
    child.stdin.end();
    let output = '';
    const take = (chunk) => {
      output += chunk;
      echo?.(chunk.toString());
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => {
      output += `\n[newcomer] killed after ${timeoutMs / 1000} s\n`;
      killGroup(child.pid, 'SIGKILL');
    }, timeoutMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal);
  } catch {
    // Already gone.
  }
}

/** A command that keeps running (a server), in its own process group so it stops whole. */
export class Background {
  output = '';

  constructor(command, { cwd, env }) {
    this.command = command;
    this.child = spawn('bash', ['-c', command], { cwd, env, detached: true, stdio: 'pipe' });
    this.child.stdin.end();
    this.child.stdout.on('data', (chunk) => (this.output += chunk));
    this.child.stderr.on('data', (chunk) => (this.output += chunk));
    this.exited = new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }

  get running() {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** SIGTERM to the whole group, SIGKILL after `graceMs`; resolves with the exit code. */
  async stop(graceMs = 30_000) {
    if (!this.running) return this.child.exitCode;
    killGroup(this.child.pid, 'SIGTERM');
    const timer = setTimeout(() => killGroup(this.child.pid, 'SIGKILL'), graceMs);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/**
 * Polls `url` until it answers 200 (resolves with the seconds it took), the server exits, or
 * `timeoutMs` passes (both throw with what the server printed).
 */
export async function waitReady(url, server, timeoutMs) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    if (!server.running)
      throw new Error(`exited (${server.child.exitCode}) before ${url} answered`);
    const status = await fetch(url)
      .then((response) => response.status)
      .catch(() => 0);
    if (status === 200) return Math.round((Date.now() - started) / 1000);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs / 1000} s`);
}
