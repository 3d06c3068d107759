import { describe, expect, it } from '@jest/globals';
import { skeletonDockerfile } from '../create/skeleton.js';
import { parseDockerfile, planHostBuild, splitAndList } from './dockerfile-plan.js';

describe('planHostBuild', () => {
  it('turns the skeleton into a checkout, the reset, the patch and the cleanup, skipping apt', () => {
    const text = skeletonDockerfile({
      cloneUrl: 'https://github.com/acme/app.git',
      headSha: 'abc1234def',
      prNumber: 5,
    }).replace(
      '# TODO(swegen): install',
      'ENV CI=true NODE_ENV="test"\nRUN apt-get update && apt-get install -y nodejs && npm ci\n# TODO(swegen): install',
    );
    const steps = planHostBuild(parseDockerfile(text));
    expect(steps.map((s) => s.kind)).toEqual([
      'skip',
      'skip',
      'source',
      'run',
      'run',
      'copy',
      'run',
      'run',
    ]);
    expect(steps[2]).toEqual({
      kind: 'source',
      url: 'https://github.com/acme/app.git',
      sha: 'abc1234def',
      target: '/app/src',
    });
    expect(steps[3]).toEqual({
      kind: 'run',
      command: 'npm ci',
      cwd: '/app/src',
      env: { DEBIAN_FRONTEND: 'noninteractive', CI: 'true', NODE_ENV: 'test' },
    });
    expect(steps[5]).toEqual({
      kind: 'copy',
      sources: ['bug.patch'],
      dest: '/tmp/bug.patch',
      cwd: '/app/src',
    });
    expect(steps[6]).toMatchObject({ command: 'patch -p1 < /tmp/bug.patch && rm /tmp/bug.patch' });
  });

  it('reads the git clone form of the fetch and continuation lines', () => {
    const text =
      'WORKDIR /app\nRUN git clone https://github.com/a/b.git src && \\\n    cd src && git fetch --depth 1 origin 0123456789abcdef && git checkout FETCH_HEAD\n';
    expect(planHostBuild(parseDockerfile(text))[0]).toEqual({
      kind: 'source',
      url: 'https://github.com/a/b.git',
      sha: '0123456789abcdef',
      target: '/app/src',
    });
  });
});

describe('splitAndList', () => {
  it('splits on top-level && only', () => {
    expect(splitAndList(`a && b "x && y" && (c && d) && 'e&&f'`)).toEqual([
      'a',
      'b "x && y"',
      '(c && d)',
      "'e&&f'",
    ]);
  });
});
