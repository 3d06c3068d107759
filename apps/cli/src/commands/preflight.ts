import { modelProblem } from '@caravel/agent';
import { AppError } from '@caravel/errors';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { EmbeddedConfig } from '../cli.config.js';

type ModelSettings = Pick<EmbeddedConfig['agentRunner']['models'], 'credentials' | 'fileRoot'>;

/**
 * Builds the chat model `spec` names once, as a run would (catalogue, credentials, a scripted or
 * replay file read and parsed), so that a model that cannot work fails the start in one line
 * naming where it came from (`origin`: `CARAVEL_MODEL`, `--model`) and what to set.
 */
export function checkModel(spec: string, origin: string, models: ModelSettings): void {
  const problem = modelProblem(spec, models.credentials, { fileRoot: models.fileRoot });
  if (!problem) return;
  throw new AppError(
    'CONFIG_INVALID',
    problem.envVar
      ? `${origin} is ${spec}, whose provider needs ${problem.envVar}: set ${problem.envVar}, or choose another model`
      : `${origin} ${problem.message}`,
  );
}

/** Whether an executable called `name` is on the PATH. */
export function onPath(name: string, path: string | undefined): boolean {
  return (path ?? '').split(delimiter).some((dir) => {
    if (dir === '') return false;
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * What the bwrap sandbox lacks on this host (bubblewrap; socat for its egress proxy), said with
 * what to do about it; undefined when nothing is missing, another provider is chosen, or there
 * is no PATH to look on.
 */
export function missingSandboxTools(
  sandboxes: { provider: 'bwrap' | 'local' | 'kubernetes'; egress: 'proxy' | 'none' },
  path: string | undefined,
  alternative = 'set SANDBOX_PROVIDER=local (no isolation)',
): string | undefined {
  // Without a PATH to look on (a host handed a bare environment) there is nothing to say.
  if (sandboxes.provider !== 'bwrap' || path === undefined) return undefined;
  const wanted = sandboxes.egress === 'proxy' ? ['bwrap', 'socat'] : ['bwrap'];
  const missing = wanted.filter((name) => !onPath(name, path));
  if (missing.length === 0) return undefined;
  return (
    `the bwrap sandbox needs ${missing.join(' and ')}, not installed here: ` +
    `apt-get install ${missing.map((name) => (name === 'bwrap' ? 'bubblewrap' : name)).join(' ')}, or ${alternative}`
  );
}
