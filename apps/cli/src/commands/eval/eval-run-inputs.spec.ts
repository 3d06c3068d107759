import { mkdir, mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openLedger, withFinished, withStarted } from '@caravel/evals';
import { UsageError } from '../cli-args.js';
import { resolveEvalConfig } from './eval-config.js';
import { runEval } from './eval.cli.js';
import { readSuite } from './eval-suite.js';
import { LEDGER_FILE, readLedger, writeAtomically } from './ledger-file.js';

const io = { out: () => undefined, err: () => undefined, onSignal: () => undefined };

async function writeTask(dir: string): Promise<void> {
  await mkdir(join(dir, 'tests'), { recursive: true });
  await mkdir(join(dir, 'environment'), { recursive: true });
  await writeFile(join(dir, 'instruction.md'), 'Fix it.\n');
  await writeFile(join(dir, 'tests', 'test.sh'), '#!/bin/bash\n');
  await writeFile(join(dir, 'environment', 'Dockerfile'), 'FROM node:20\n');
  await writeFile(join(dir, 'task.toml'), '[metadata]\nsource_repo = "acme/strings"\n');
}

describe('caravel eval run inputs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'caravel-eval-inputs-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads a suite folder of tasks in name order, and a single task as a suite of one', async () => {
    await writeTask(join(dir, 'suite', 'b__x-2'));
    await writeTask(join(dir, 'suite', 'a__x-1'));
    await mkdir(join(dir, 'suite', 'notes'));
    const suite = await readSuite(join(dir, 'suite'));
    expect(suite.name).toBe('suite');
    expect(suite.tasks.map((t) => [t.taskId, t.sourceRepo])).toEqual([
      ['a__x-1', 'acme/strings'],
      ['b__x-2', 'acme/strings'],
    ]);
    expect((await readSuite(join(dir, 'suite', 'a__x-1'))).tasks).toHaveLength(1);
  });

  it('refuses a missing suite folder, a file, and a folder with no task', async () => {
    await expect(readSuite(join(dir, 'nope'))).rejects.toThrow(/nope: no such folder/);
    await writeFile(join(dir, 'file'), '');
    await expect(readSuite(join(dir, 'file'))).rejects.toThrow(/file: not a folder/);
    await mkdir(join(dir, 'empty'));
    await expect(readSuite(join(dir, 'empty'))).rejects.toThrow(/no task in it/);
  });

  it('takes a configuration by name with --model or CARAVEL_MODEL, or from a file', async () => {
    await expect(resolveEvalConfig('current', { model: 'm:x', env: {} })).resolves.toEqual({
      name: 'current',
      model: 'm:x',
      env: {},
    });
    const file = join(dir, 'cheap.json');
    await writeFile(file, JSON.stringify({ model: 'm:cheap', env: { CARAVEL_EFFORT: 'low' } }));
    await expect(resolveEvalConfig(file, { env: { CARAVEL_MODEL: 'm:x' } })).resolves.toEqual({
      name: 'cheap',
      model: 'm:cheap',
      env: { CARAVEL_EFFORT: 'low' },
    });
  });

  it('refuses a bad configuration saying why', async () => {
    await expect(resolveEvalConfig('current', { env: {} })).rejects.toThrow(/has no model/);
    await expect(resolveEvalConfig('a b', { model: 'm', env: {} })).rejects.toThrow(
      /a configuration is a name/,
    );
    await expect(resolveEvalConfig(join(dir, 'none.json'), { env: {} })).rejects.toThrow(
      /no such file/,
    );
    await writeFile(join(dir, 'bad.json'), JSON.stringify({ model: 'm', env: { lower: 1 } }));
    await expect(resolveEvalConfig(join(dir, 'bad.json'), { env: {} })).rejects.toThrow(
      /bad.json: env\.lower/,
    );
  });

  it('refuses a command line without a suite or --config, or with a bad count', async () => {
    const usage = (args: string[], values: Record<string, string>) =>
      runEval(['run', ...args], values, io).catch((error: unknown) => error);
    await expect(usage([], {})).resolves.toBeInstanceOf(UsageError);
    await expect(usage(['tasks'], {})).resolves.toMatchObject({ message: /needs --config/ });
    await expect(usage(['tasks'], { config: 'c', attempts: '0' })).resolves.toMatchObject({
      message: /--attempts must be a whole number from 1/,
    });
    await expect(usage(['tasks'], { config: 'c', alpha: '0.1' })).resolves.toMatchObject({
      message: /does not take --alpha/,
    });
  });

  it('writes the ledger whole (no partial file left) and reads it back; refuses a damaged one', async () => {
    const out = join(dir, 'run');
    await mkdir(out);
    const { ledger } = openLedger(undefined, {
      runId: 'r',
      suite: 's',
      config: 'c',
      model: 'm',
      createdAt: 't',
    });
    const key = { taskId: 'a__x-1', attempt: 1 };
    const attempt = {
      attempt: 1,
      resolved: true,
      exitStatus: 'submitted',
      costUsd: 0,
      modelCalls: 1,
      inputTokens: 1,
      outputTokens: 1,
      wallMs: 1,
      patch: '',
    };
    const file = join(out, LEDGER_FILE);
    await writeAtomically(file, JSON.stringify(withStarted(ledger, key)));
    await writeAtomically(file, JSON.stringify(withFinished(ledger, 'a__x-1', attempt)));
    expect(await readLedger(out)).toMatchObject({ started: [], finished: [{ taskId: 'a__x-1' }] });
    expect((await readdir(out)).filter((f) => f.endsWith('.partial'))).toEqual([]);
    await writeFile(join(out, LEDGER_FILE), '{"version": 1');
    await expect(readLedger(out)).rejects.toThrow(/attempts.json: not JSON/);
    expect(await readFile(join(out, LEDGER_FILE), 'utf8')).toBe('{"version": 1');
    await expect(readLedger(join(dir, 'nothing-here'))).resolves.toBeUndefined();
  });
});
