import { afterEach, describe, expect, it } from '@jest/globals';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
