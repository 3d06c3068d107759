import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from '@jest/globals';
import { call, scriptedRun } from '../testing/scripted-run.js';

const dir = mkdtempSync(join(tmpdir(), 'caravel-offload-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** `seq 1 40000` prints 228,894 characters: far over the default 25,000. */
const LONG = 'seq 1 40000';

type Result = { name: string; content: string; toolCallId: string };

async function executeResult(env: Record<string, string> = {}) {
  const { bus, runId } = await scriptedRun(
    dir,
    [
      call('execute', { command: LONG }),
      call('reply_to_user', { text: 'counted' }),
      { content: 'done' },
    ],
    undefined,
    env,
  );
  const results = bus
    .dataOf('evt.run.step')
    .flatMap((step) => step['results'] as Result[])
    .filter((r) => r.name === 'execute');
  return { result: results[0], runId };
}

describe('a huge command output in a run', () => {
  it("goes to a file under the run's folder in the sandbox; the model reads its path, size and both ends", async () => {
    const { result, runId } = await executeResult();
    const path = `.git/caravel-outputs/${runId}/${result?.toolCallId ?? ''}.txt`;

    expect(readFileSync(join(dir, path), 'utf8')).toBe(
      `${Array.from({ length: 40_000 }, (_, i) => i + 1).join('\n')}\n`,
    );
    expect(result?.content).toContain(`saved in full in ${path}`);
    expect(result?.content).toContain('228,894 characters');
    expect(result?.content).toMatch(/^1\n2\n3\n/m);
    expect(result?.content.trimEnd().endsWith('39999\n40000')).toBe(true);
    expect(result?.content.length).toBeLessThan(6_000);
  });

  it('stays in the conversation, clipped, with RUN_OFFLOAD_OUTPUT_CHARS=0', async () => {
    const { result, runId } = await executeResult({ RUN_OFFLOAD_OUTPUT_CHARS: '0' });
    expect(result?.content).toMatch(/response clipped/);
    expect(existsSync(join(dir, '.git/caravel-outputs', runId))).toBe(false);
  });
});
