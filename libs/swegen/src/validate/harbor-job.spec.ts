import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readHarborJob } from './harbor-job.js';

const dirs: string[] = [];
afterEach(async () =>
  Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))),
);

async function job(files: Record<string, unknown>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'swegen-harbor-job-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(
      join(root, path),
      typeof content === 'string' ? content : JSON.stringify(content),
    );
  }
  return root;
}

const evals = (reward: Record<string, string[]>) => ({
  stats: { evals: { oracle__adhoc: { n_trials: 1, reward_stats: { reward } } } },
});

describe('readHarborJob', () => {
  it('reads the reward bucket of the stats, its key a Python float string', async () => {
    expect(await readHarborJob(await job({ 'result.json': evals({ '1.0': ['t__a'] }) }))).toEqual({
      reward: 1,
      trial: 't__a',
    });
  });

  it('reads trial_results when an older Harbor listed them in the job result', async () => {
    const listed = {
      trial_results: [{ trial_name: 't__b', verifier_result: { rewards: { reward: 0 } } }],
    };
    expect(await readHarborJob(await job({ 'result.json': listed }))).toEqual({
      reward: 0,
      trial: 't__b',
    });
  });

  it('refuses a job of more than one trial, a bucket that is not a number, a reward that is not one', async () => {
    const two = await readHarborJob(
      await job({ 'result.json': evals({ '0.0': ['a'], '1.0': ['b'] }) }),
    );
    expect(two).toMatchObject({
      reward: null,
      error: expect.stringContaining('lists 2 trials; expected one'),
    });
    const key = await readHarborJob(await job({ 'result.json': evals({ yes: ['a'] }) }));
    expect(key).toMatchObject({
      reward: null,
      error: expect.stringContaining("reward bucket 'yes'"),
    });
    const text = await readHarborJob(
      await job({
        'result.json': { stats: { evals: {} } },
        't__c/result.json': { verifier_result: { rewards: { reward: '1' } } },
      }),
    );
    expect(text).toMatchObject({
      reward: null,
      error: expect.stringMatching(/t__c\/result\.json has a non-numeric reward$/),
    });
  });

  it('says so when the job result is missing, not an object, or names no reward', async () => {
    const missing = await job({});
    expect(await readHarborJob(missing)).toEqual({
      reward: null,
      error: `Harbor wrote no job result (${join(missing, 'result.json')})`,
    });
    expect(await readHarborJob(await job({ 'result.json': '[1]' }))).toMatchObject({
      error: expect.stringContaining('is not a JSON object'),
    });
    expect(await readHarborJob(await job({ 'result.json': { stats: {} } }))).toMatchObject({
      error: expect.stringContaining('names no reward'),
    });
  });
});
