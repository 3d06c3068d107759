import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A trial's reward, or why there is none. */
export type RewardOutcome =
  | { readonly reward: number; readonly source: 'reward.json' | 'reward.txt' }
  | { readonly reward: null; readonly error: string };

async function readOptional(file: string): Promise<string | undefined> {
  return readFile(file, 'utf8').catch(() => undefined);
}

function fromJson(text: string): number | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const values = parsed as Record<string, unknown>;
  const value =
    'reward' in values
      ? values['reward']
      : Object.values(values).length === 1
        ? Object.values(values)[0]
        : undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/**
 * Reads a verifier directory the way Harbor does: `reward.json` (a flat `{name: number}`, the
 * `reward` key or its only key) wins over `reward.txt` (one float). A missing, empty or
 * unparsable file gives no reward and says why.
 */
export async function readReward(verifierDir: string): Promise<RewardOutcome> {
  const json = await readOptional(join(verifierDir, 'reward.json'));
  if (json !== undefined) {
    const reward = fromJson(json);
    return reward === undefined
      ? { reward: null, error: 'reward.json holds no numeric reward' }
      : { reward, source: 'reward.json' };
  }
  const txt = await readOptional(join(verifierDir, 'reward.txt'));
  if (txt === undefined) return { reward: null, error: 'the verifier wrote no reward file' };
  if (txt.trim() === '') return { reward: null, error: 'reward.txt is empty' };
  const reward = Number(txt.trim());
  return Number.isFinite(reward)
    ? { reward, source: 'reward.txt' }
    : { reward: null, error: `reward.txt is not a number: ${txt.trim().slice(0, 40)}` };
}
