import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICES } from '@caravel/cli';
import { defaultPort, readRepoFile, REPO_ROOT } from './deployment-checks.js';
import {
  collected,
  effective,
  parseDockerfile,
  stageChain,
  type Stage,
} from './dockerfile-stages.js';

const DOCKERFILE = 'infra/docker/Dockerfile';

interface Target {
  name: string;
  project: string;
  port: number;
}

const TARGETS: Target[] = [
  ...SERVICES.map((s) => ({
    name: s.name,
    project: `apps/${s.name}`,
    port: defaultPort(s.schema),
  })),
  { name: 'caravel', project: 'apps/cli', port: 3000 },
];

const ROOT_USERS = new Set(['', 'root', '0', '0:0', 'root:root']);

function targetProblems(stages: readonly Stage[], target: Target): string[] {
  const { name, project, port } = target;
  if (!stages.some((s) => s.name === name)) return [`${name}: no --target ${name} stage`];
  const problems: string[] = [];
  const cmd = effective(stages, name, 'CMD') ?? '';
  let argv: unknown;
  try {
    argv = JSON.parse(cmd);
  } catch {
    problems.push(`${name}: CMD is not in exec form, so node would not get SIGTERM`);
  }
  if (!Array.isArray(argv) || argv[0] !== 'node' || argv[1] !== `${project}/dist/main.js`) {
    problems.push(`${name}: CMD does not run node ${project}/dist/main.js`);
  }
  if (ROOT_USERS.has(effective(stages, name, 'USER') ?? '')) problems.push(`${name}: runs as root`);
  if (!collected(stages, name, 'EXPOSE').some((e) => e.split(/\s+/).includes(String(port)))) {
    problems.push(`${name}: does not EXPOSE ${port}`);
  }
  if (
    !collected(stages, name, 'ENV').some((e) => new RegExp(`(^|\\s)PORT=${port}(\\s|$)`).test(e))
  ) {
    problems.push(`${name}: does not set PORT=${port}`);
  }
  const healthcheck = effective(stages, name, 'HEALTHCHECK') ?? '';
  if (!/CMD \["node",.*"\/health\/live"\]/.test(healthcheck)) {
    problems.push(`${name}: HEALTHCHECK does not probe /health/live with node`);
  }
  return problems;
}

function dockerfileProblems(text: string, targets: readonly Target[]): string[] {
  const stages = parseDockerfile(text);
  return targets.flatMap((t) => targetProblems(stages, t));
}

describe('infra/docker/Dockerfile', () => {
  const text = readRepoFile(DOCKERFILE);
  const stages = parseDockerfile(text);

  it('has a non-root runtime target per service and for caravel, each running its own main', () => {
    expect(dockerfileProblems(text, TARGETS)).toEqual([]);
  });

  it('runs the embedded host with `start`, reachable from outside, with its data on a volume', () => {
    expect(JSON.parse(effective(stages, 'caravel', 'CMD')!)).toEqual([
      'node',
      'apps/cli/dist/main.js',
      'start',
    ]);
    const env = collected(stages, 'caravel', 'ENV').join(' ');
    expect(env).toContain('HOST=0.0.0.0');
    expect(env).toContain('CARAVEL_DATA_DIR=/data');
    expect(collected(stages, 'caravel', 'VOLUME').join(' ')).toContain('/data');
  });

  it('builds once: npm ci, the swc build, then dev dependencies pruned', () => {
    const build = stages.find((s) => s.name === 'build')!;
    const runs = build.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    const step = (pattern: RegExp): number => runs.findIndex((r) => pattern.test(r));
    expect(step(/npm ci\b/)).toBeGreaterThanOrEqual(0);
    expect(step(/node tools\/scripts\/build\.mjs/)).toBeGreaterThan(step(/npm ci\b/));
    expect(step(/npm prune --omit=dev/)).toBeGreaterThan(step(/node tools\/scripts\/build\.mjs/));
  });

  it('ships the Prisma migrations and the health probe, and copies only the build output', () => {
    const build = stages.find((s) => s.name === 'build')!;
    const runs = build.instructions
      .filter((i) => i.keyword === 'RUN')
      .map((i) => i.args)
      .join('\n');
    expect(runs).toContain('libs/db/prisma/migrations');
    expect(runs).toContain('infra/docker/healthcheck.mjs');
    for (const target of TARGETS) {
      const chain = stageChain(stages, target.name);
      expect(chain.map((s) => s.name)).toContain('runtime');
      expect(chain.map((s) => s.name)).not.toContain('build');
    }
    expect(collected(stages, 'runtime', 'COPY')).toEqual([
      expect.stringMatching(/^--from=build\b/),
    ]);
    expect(existsSync(join(REPO_ROOT, 'infra/docker/healthcheck.mjs'))).toBe(true);
    expect(existsSync(join(REPO_ROOT, 'libs/db/prisma/migrations'))).toBe(true);
  });

  it('points each target at a main that the build produces', () => {
    const mains = TARGETS.map((t) => join(t.project, 'src/main.ts'));
    expect(mains.filter((main) => !existsSync(join(REPO_ROOT, main)))).toEqual([]);
  });

  it('keeps node_modules, dist and git out of the build context', () => {
    const ignored = readRepoFile('.dockerignore')
      .split('\n')
      .map((l) => l.trim());
    expect(ignored).toEqual(expect.arrayContaining(['**/node_modules', '**/dist', '.git']));
    for (const needed of [
      'tools',
      'apps',
      'libs',
      'package.json',
      'package-lock.json',
      'infra/docker',
    ]) {
      expect(ignored).not.toContain(needed);
    }
  });

  describe('catches a broken copy', () => {
    it('with a target missing', () => {
      const withoutReviewer = text.replace(/FROM runtime AS reviewer[\s\S]*?(?=\nFROM )/, '');
      expect(dockerfileProblems(withoutReviewer, TARGETS)).toEqual([
        'reviewer: no --target reviewer stage',
      ]);
    });

    it('with a wrong main, a root user, a shell-form CMD or no healthcheck', () => {
      const edited = text
        .replace(
          'CMD ["node", "apps/dispatch/dist/main.js"]',
          'CMD ["node", "apps/ingress/dist/main.js"]',
        )
        .replace('FROM runtime AS analyzer\n', 'FROM runtime AS analyzer\nUSER root\n')
        .replace(
          'CMD ["node", "apps/dashboard/dist/main.js"]',
          'CMD node apps/dashboard/dist/main.js',
        )
        .replace(/(AS runtime\n[\s\S]*?)HEALTHCHECK[^\n]*\n/, '$1');
      expect(dockerfileProblems(edited, TARGETS)).toEqual(
        expect.arrayContaining([
          'dispatch: CMD does not run node apps/dispatch/dist/main.js',
          'analyzer: runs as root',
          'dashboard: CMD is not in exec form, so node would not get SIGTERM',
          'ingress: HEALTHCHECK does not probe /health/live with node',
        ]),
      );
    });
  });
});
