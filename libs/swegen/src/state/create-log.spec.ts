import { afterEach, describe, expect, it } from '@jest/globals';
import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateLog } from './create-log.js';
import { TaskReferences } from './task-references.js';

const dirs: string[] = [];
afterEach(async () =>
  Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true }))),
);

async function scratch(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), 'swegen-state-'));
  dirs.push(d);
  return d;
}

const record = {
  key: 'a/b#1',
  repo: 'a/b',
  pr: 1,
  task_id: 'a__b-1',
  harbor: '/t/a__b-1',
  ts: '2026-01-01T00:00:00Z',
};

describe('CreateLog', () => {
  it('keeps the last record per key, reads old records as published, and skips torn lines', async () => {
    const file = join(await scratch(), 'create.jsonl');
    const log = new CreateLog(file);
    await appendFile(file, `${JSON.stringify(record)}\n{"key": "torn`);
    expect(await log.find('a/b#1')).toMatchObject({ published: true });
    await appendFile(file, '\n');
    await log.put({ ...record, published: false });
    expect(await log.find('a/b#1')).toMatchObject({ published: false });
    expect((await log.load()).size).toBe(1);
  });

  it("replaces a key's records with the one put, keeping every other line as it was", async () => {
    const file = join(await scratch(), 'create.jsonl');
    const log = new CreateLog(file);
    const other = { ...record, key: 'a/b#2', pr: 2, published: true };
    await log.put({ ...record, published: false });
    await appendFile(file, `${JSON.stringify(other)}\n${JSON.stringify(record)}\n{"key": "torn\n`);
    const url = 'https://github.com/d/t/pull/1';
    await log.put({ ...record, published: true, pr_url: url });
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines).toEqual([
      JSON.stringify(other),
      '{"key": "torn',
      JSON.stringify({ ...record, published: true, pr_url: url }),
    ]);
    expect(await log.find('a/b#1')).toEqual({ ...record, published: true, pr_url: url });
  });
});

describe('TaskReferences', () => {
  it('offers a repository reference for 180 days, keyed case-insensitively', async () => {
    const file = join(await scratch(), 'refs.json');
    let now = new Date('2026-01-01T00:00:00Z');
    const refs = new TaskReferences(file, () => now);
    await refs.save({
      repo: 'Acme/App',
      taskId: 'acme__app-1',
      pr: 1,
      taskDir: '/t',
      dockerfile: 'FROM x',
      testSh: 'true',
    });
    now = new Date('2026-06-29T00:00:00Z');
    expect(await refs.get('acme/app')).toMatchObject({
      taskId: 'acme__app-1',
      dockerfile: 'FROM x',
    });
    now = new Date('2026-07-01T00:00:00Z');
    expect(await refs.get('acme/app')).toBeUndefined();
  });
});
