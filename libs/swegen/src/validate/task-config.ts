import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The timeouts of a task, from its task.toml (Harbor's defaults when absent). */
export interface TaskTimeouts {
  readonly buildMs: number;
  readonly agentMs: number;
  readonly verifierMs: number;
}

const DEFAULT_SECONDS = 600;

/**
 * Reads the numeric `key = value` pairs per `[section]` of a TOML file. Enough for the timeouts
 * of task.toml; anything else in the file is ignored.
 */
export function tomlNumbers(text: string): Map<string, number> {
  const values = new Map<string, number>();
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trim();
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) section = header[1] ?? '';
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*([-+]?[0-9]+(?:\.[0-9]+)?)$/.exec(line);
    if (pair) values.set(section ? `${section}.${pair[1]}` : (pair[1] ?? ''), Number(pair[2]));
  }
  return values;
}

/** The task's build, agent and verifier timeouts in milliseconds. */
export async function readTaskTimeouts(taskDir: string): Promise<TaskTimeouts> {
  const text = await readFile(join(taskDir, 'task.toml'), 'utf8').catch(() => '');
  const values = tomlNumbers(text);
  const ms = (key: string): number => (values.get(key) ?? DEFAULT_SECONDS) * 1000;
  return {
    buildMs: ms('environment.build_timeout_sec'),
    agentMs: ms('agent.timeout_sec'),
    verifierMs: ms('verifier.timeout_sec'),
  };
}
