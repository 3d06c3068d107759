import { swegenError, swegenExitCode } from '@caravel/swegen';
import { buildJsBugFixFixture } from '@caravel/swegen/testing';
import { describe, expect, it } from '@jest/globals';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trialLine } from './analyze.command.js';
import { runSwegen, SWEGEN_USAGE } from './swegen.command.js';

async function swegen(args: string[]): Promise<{ status: number; out: string[]; err: string[] }> {
  const out: string[] = [];
  const err: string[] = [];
  const status = await runSwegen(
    args,
    {},
    {
      out: (l) => out.push(l) > 0,
      err: (l) => err.push(l) > 0,
    },
  );
  return { status, out, err };
}

describe('caravel swegen', () => {
  it('prints the usage and exits 2 without a command, 0 when asked for help', async () => {
    expect(await swegen([])).toMatchObject({ status: 2, out: [SWEGEN_USAGE], err: [] });
    expect(await swegen(['--help'])).toMatchObject({ status: 0, out: [SWEGEN_USAGE] });
  });

  it('answers an unknown command with its coded error line and exit status', async () => {
    const run = await swegen(['frobnicate']);
    expect(run).toMatchObject({
      status: swegenExitCode(swegenError('invalid_input', 'x')),
      err: ["caravel swegen: unknown swegen command 'frobnicate'"],
    });
  });
});

describe('caravel swegen create', () => {
  it('takes --repo and --pr from --pr-json when they are left out', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'swegen-cli-'));
    try {
      const prJson = join(dir, 'pr.json');
      const sha = (c: string) => c.repeat(40);
      const pull = {
        number: 7,
        title: 't',
        body: null,
        merged_at: '2026-01-01T00:00:00Z',
        created_at: '2026-01-01T00:00:00Z',
        html_url: 'h',
        base: { sha: sha('a'), ref: 'main', repo: { full_name: 'acme/strings', clone_url: dir } },
        head: { sha: sha('b') },
      };
      await writeFile(prJson, JSON.stringify(pull));
      const { status, err } = await swegen(['create', '--repo-path', dir, '--pr-json', prJson]);
      // Past the arguments: the next thing missing is the model.
      expect(err).toEqual([expect.stringContaining('no model')]);
      expect(status).toBe(2);
      const none = await swegen(['create', '--repo-path', dir]);
      expect(none.err).toEqual([expect.stringContaining('create needs --repo OWNER/REPO')]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('caravel swegen create --no-completion', () => {
  it('writes the skeleton for a person with no model configured', async () => {
    const fixture = buildJsBugFixFixture();
    const dir = await mkdtemp(join(tmpdir(), 'swegen-cli-'));
    try {
      const prJson = join(dir, 'pr.json');
      await writeFile(prJson, JSON.stringify(fixture.prJson));
      const args = ['create', '--repo-path', fixture.repo.path, '--pr-json', prJson];
      const paths = ['--state-dir', join(dir, 'state'), '--tasks-dir', join(dir, 'tasks')];
      const { status, out, err } = await swegen([...args, ...paths, '--no-completion']);
      expect(err).toEqual([]);
      expect(status).toBe(0);
      expect(out.at(-1)).toBe(`created: ${join(dir, 'tasks', 'acme__strings-7')}`);
      expect(existsSync(join(dir, 'tasks', 'acme__strings-7', 'instruction.md'))).toBe(true);
    } finally {
      fixture.repo.remove();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('caravel swegen analyze', () => {
  it('lists analyze and its options in the usage', () => {
    expect(SWEGEN_USAGE).toContain('analyze TASK');
    expect(SWEGEN_USAGE).toContain('-k, --n-trials N (3) -n, --n-concurrent N (3)');
  });

  it('refuses a missing task with exit 2', async () => {
    const run = await swegen(['analyze']);
    expect(run).toMatchObject({
      status: 2,
      err: ['caravel swegen: analyze needs a task directory'],
    });
  });

  it('refuses zero trials given as -k with exit 2', async () => {
    const run = await swegen(['analyze', 'tasks/x', '-k', '0', '-n', '2']);
    expect(run).toMatchObject({
      status: 2,
      err: ['caravel swegen: --n-trials must be at least 1'],
    });
  });

  it('refuses to run without a model', async () => {
    const run = await swegen(['analyze', 'tasks/x', '--n-trials', '2']);
    expect(run.status).toBe(2);
    expect(run.err[0]).toContain('no model');
  });
});

describe('trialLine', () => {
  it('shows the reward and the classification with its reason', () => {
    const line = trialLine(
      {
        trial: 2,
        reward: 0,
        classification: { classification: 'good_failure', reason: 'no change', evidence: '' },
        changedFiles: [],
        testFilesTouched: [],
        logDir: '/jobs/t/analyze/trial-2',
      },
      3,
    );
    expect(line).toBe('[trial 2/3] reward=0 good_failure: no change');
  });

  it('says why a trial has no reward and no classification', () => {
    const line = trialLine(
      {
        trial: 1,
        reward: null,
        rewardError: 'the verifier timed out',
        classificationError: 'no tool call',
        changedFiles: [],
        testFilesTouched: [],
        logDir: '/jobs/t/analyze/trial-1',
      },
      1,
    );
    expect(line).toBe(
      '[trial 1/1] reward=none (the verifier timed out) unclassified (no tool call)',
    );
  });
});
