import { parseTraj, readTrajectoryFile, type Traj } from '@caravel/agent';
import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlesOfReplayConfig, prepareSweTools, repoNameOf } from './replay-bundles.js';

/** Caravel's test bundles in SWE-agent's layout. */
const TOOLS = fileURLToPath(
  new URL('../../../../libs/agent/src/replay/fixtures/swe-tools', import.meta.url),
);

function trajWith(replayConfig: unknown): Traj {
  const text = JSON.stringify({
    trajectory: [],
    history: [],
    info: {},
    replay_config: replayConfig === null ? null : JSON.stringify(replayConfig),
    environment: 'main',
  });
  return parseTraj(text, 'x.traj');
}

let scratch: string | undefined;
afterEach(async () => {
  if (scratch) await rm(scratch, { recursive: true, force: true });
  scratch = undefined;
});

describe("SWE-agent's tools for a replay", () => {
  it('names the repository folder as SWE-agent does and lists the configured bundles', () => {
    const github = {
      env: { repo: { type: 'github', github_url: 'https://github.com/SWE-agent/test-repo' } },
    };
    expect(repoNameOf(trajWith(github))).toBe('SWE-agent__test-repo');
    expect(repoNameOf(trajWith({ env: { repo: { type: 'local', path: '/src/my repo/' } } }))).toBe(
      'my-repo',
    );
    expect(repoNameOf(trajWith({ env: { repo: { repo_name: 'testbed', path: '/x' } } }))).toBe(
      'testbed',
    );
    expect(repoNameOf(trajWith(null))).toBeNull();
    const zeroX = readTrajectoryFile(
      JSON.stringify({
        trajectory: [
          {
            action: 'ls',
            observation: '',
            response: '',
            thought: '',
            state: '{"working_dir": "/calc-repo/src"}',
          },
        ],
        history: [],
        info: {},
      }),
      'old.traj',
    );
    expect(repoNameOf(zeroX)).toBe('calc-repo');
    const tools = {
      agent: {
        tools: { bundles: [{ path: 'tools/registry' }, { path: '/abs/tools/edit_anthropic' }] },
      },
    };
    expect(bundlesOfReplayConfig(trajWith(tools))).toEqual(['registry', 'edit_anthropic']);
  });

  it('stages the chosen bundles read-only with the binds of SWE-agent layout, and says what is missing', async () => {
    scratch = await mkdtemp(join(tmpdir(), 'caravel-replay-bundles-'));
    const traj = trajWith({
      env: { repo: { type: 'local', path: '/src/calc-repo' } },
      problem_statement: { type: 'text', text: 'Fix the colon.', id: 'c0ffee' },
      agent: {
        tools: { env_variables: { WINDOW: 10 }, registry_variables: { USE_FILEMAP: 'true' } },
      },
    });
    const tools = await prepareSweTools(
      { toolsDir: TOOLS, bundles: ['registry', 'windowed'] },
      traj,
      'x.traj',
      scratch,
    );
    expect(tools).toMatchObject({
      repoDir: '/calc-repo',
      env: { PROBLEM_STATEMENT: 'Fix the colon.', WINDOW: '10' },
      registry: { USE_FILEMAP: 'true' },
      binds: [
        { path: '/calc-repo', of: 'workspace' },
        { path: '/root', of: 'home' },
        { path: '/root/tools', hostDir: join(scratch, 'swe-tools') },
      ],
    });
    expect(await readdir(join(scratch, 'swe-tools'))).toEqual(['registry', 'windowed']);
    const open = await stat(join(scratch, 'swe-tools', 'windowed', 'bin', 'open'));
    expect(open.mode & 0o777).toBe(0o555);

    await expect(
      prepareSweTools({ bundles: ['registry'] }, traj, 'x.traj', scratch),
    ).rejects.toThrow('--bundle needs --tools-dir');
    await expect(prepareSweTools({ toolsDir: TOOLS }, traj, 'x.traj', scratch)).rejects.toThrow(
      'x.traj names no tool bundles in its replay_config: pass --bundle NAME',
    );
    expect(await prepareSweTools({}, traj, 'x.traj', scratch)).toBeNull();
    const onTmp = trajWith({ env: { repo: { type: 'local', path: '/src/tmp' } } });
    await expect(
      prepareSweTools(
        { toolsDir: TOOLS, bundles: ['registry'] },
        onTmp,
        'x.traj',
        join(scratch, 'b'),
      ),
    ).rejects.toThrow("bind path /tmp is part of the sandbox's own layout");
  });
});
