import { describe } from '@jest/globals';
import { spawn, spawnSync } from 'node:child_process';
import { repoRoot } from './processes.js';

/** The oldest Compose that reads the override's `!override` and `!reset` tags. */
const MIN_COMPOSE = [2, 24, 4] as const;

/**
 * The environment `docker` runs with: this process's own (PATH, HOME, DOCKER_HOST, DOCKER_CONFIG,
 * DOCKER_CONTEXT: where the engine is and how to reach it) plus the test's variables.
 */
export function dockerEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  // eslint-disable-next-line no-restricted-syntax -- docker finds its engine through these
  return { ...process.env, ...extra };
}

/** What a finished `docker` command said. */
export interface DockerResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `docker <args>` in the repository root without blocking the event loop (the fake GitHub in
 * this process must keep answering the containers while compose works) and resolves with what it
 * printed.
 */
export function docker(args: readonly string[], env = dockerEnvironment()): Promise<DockerResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (status) => resolve({ status, stdout, stderr }));
  });
}

/** The first line of a failed command's complaint, for a skip reason. */
const firstLine = (text: string): string => text.trim().split('\n')[0] ?? '';

/** `2.29.1` from `v2.29.1` or `2.29.1-desktop.1`; null when the text is no version. */
function versionOf(text: string): number[] | null {
  const found = /(\d+)\.(\d+)\.(\d+)/.exec(text);
  return found ? found.slice(1).map(Number) : null;
}

function olderThan(version: readonly number[], minimum: readonly number[]): boolean {
  for (const [index, part] of minimum.entries()) {
    const own = version[index] ?? 0;
    if (own !== part) return own < part;
  }
  return false;
}

/**
 * Why `docker compose up` cannot run here, or null: the docker CLI on the PATH, an engine that
 * answers `docker info`, and the Compose plugin, recent enough for the override's tags.
 */
export function dockerComposeMissing(): string | null {
  const options = { encoding: 'utf8' as const, timeout: 20_000, env: dockerEnvironment() };
  const info = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], options);
  if (info.error) return `no docker CLI on the PATH (${info.error.message})`;
  if (info.status !== 0) return `no reachable Docker engine (${firstLine(info.stderr)})`;
  const compose = spawnSync('docker', ['compose', 'version', '--short'], options);
  if (compose.status !== 0) {
    return `no Docker Compose plugin (docker compose version: ${firstLine(compose.stderr)})`;
  }
  const version = versionOf(compose.stdout);
  if (!version || olderThan(version, MIN_COMPOSE)) {
    return `Docker Compose ${compose.stdout.trim()} is older than ${MIN_COMPOSE.join('.')} (the override's !override and !reset)`;
  }
  return null;
}

/**
 * `describe` where Docker Compose can run; elsewhere a skipped suite that says why, printing
 * "skipped: <reason>" (under CI=true too: CI provides NATS and PostgreSQL, not a Docker engine).
 */
export function describeWithDockerCompose(name: string, body: () => void): void {
  const missing = dockerComposeMissing();
  if (!missing) {
    describe(name, body);
    return;
  }
  process.stdout.write(`skipped: ${name}: ${missing}\n`);
  describe.skip(`${name} (skipped: ${missing})`, body);
}
