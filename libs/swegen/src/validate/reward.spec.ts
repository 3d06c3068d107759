import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseHarborJob } from './harbor-runner.js';
import { readReward } from './reward.js';

const dirs: string[] = [];
afterEach(async () =>
  Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))),
);

async function dir(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'swegen-reward-'));
  dirs.push(root);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(root, path, '..'), { recursive: true });
    await writeFile(join(root, path), content);
  }
  return root;
}

describe('readReward', () => {
  it('prefers reward.json over reward.txt', async () => {
    expect(
      await readReward(await dir({ 'reward.json': '{"reward": 1}', 'reward.txt': '0\n' })),
    ).toEqual({ reward: 1, source: 'reward.json' });
  });

  it('reads a float from reward.txt', async () => {
    expect(await readReward(await dir({ 'reward.txt': '0\n' }))).toEqual({
      reward: 0,
      source: 'reward.txt',
    });
  });

  it('gives no reward, with the reason, for an empty, garbled or missing file', async () => {
    expect(await readReward(await dir({ 'reward.txt': '  \n' }))).toEqual({
      reward: null,
      error: 'reward.txt is empty',
    });
    expect(await readReward(await dir({ 'reward.txt': 'yes' }))).toMatchObject({ reward: null });
    expect(await readReward(await dir({}))).toEqual({
      reward: null,
      error: 'the verifier wrote no reward file',
    });
  });
});

describe('parseHarborJob', () => {
  it('reads the stats buckets (string keys), then trial_results, then trial directories', async () => {
    const stats = {
      stats: {
        evals: { nop__adhoc: { reward_stats: { reward: { '0.0': [], '1.0': ['t__x'] } } } },
      },
    };
    expect(await parseHarborJob(await dir({ 'result.json': JSON.stringify(stats) }))).toBe(1);
    const listed = { trial_results: [{ verifier_result: { rewards: { reward: 0 } } }] };
    expect(await parseHarborJob(await dir({ 'result.json': JSON.stringify(listed) }))).toBe(0);
    const scanned = {
      'result.json': '{}',
      'task__abc/result.json': JSON.stringify({ verifier_result: { rewards: { reward: 1 } } }),
    };
    expect(await parseHarborJob(await dir(scanned))).toBe(1);
    expect(await parseHarborJob(await dir({ 'result.json': '{}' }))).toBeUndefined();
  });
});
