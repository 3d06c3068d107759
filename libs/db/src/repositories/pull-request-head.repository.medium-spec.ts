import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { describeEachDatabase } from '@caravel/testing';
import type { Database } from '../connection/database.types.js';
import { openDatabase } from '../connection/open-database.js';
import { PullRequestHeadRepository } from './pull-request-head.repository.js';

const at = (time: string) => new Date(`2026-12-04T08:00:${time}Z`);
const A = 'a'.repeat(40);
const B = 'b'.repeat(40);
const C = 'c'.repeat(40);

await describeEachDatabase('pull request head repository', openDatabase, (target) => {
  let database: Database;
  let heads: PullRequestHeadRepository;
  const pullRequest = () => ({ owner: 'acme', repo: 'widgets', number: randomInt(1, 2 ** 30) });

  beforeAll(async () => {
    database = await target.open();
    heads = new PullRequestHeadRepository(database.db);
  });

  afterAll(async () => {
    await database?.close();
  });

  it('answers with the latest push made at or after a time, and nothing for an older one', async () => {
    const pr = pullRequest();
    expect(await heads.since(pr, at('00'))).toBeNull();
    await heads.record(pr, { headSha: A, at: at('10') });

    expect(await heads.since(pr, at('05'))).toMatchObject({ ...pr, headSha: A, seenAt: at('10') });
    expect(await heads.since(pr, at('10'))).not.toBeNull();
    expect(await heads.since(pr, at('11'))).toBeNull();
    expect(await heads.since({ ...pr, number: pr.number + 1 }, at('00'))).toBeNull();
    expect(await heads.since({ ...pr, repo: 'gadgets' }, at('00'))).toBeNull();
  });

  it('keeps the latest push when an older one is handled late or one is heard of again', async () => {
    const pr = pullRequest();
    await heads.record(pr, { headSha: B, at: at('20') });
    await heads.record(pr, { headSha: A, at: at('15') });
    await heads.record(pr, { headSha: B, at: at('20') });
    expect(await heads.since(pr, at('00'))).toMatchObject({ headSha: B, seenAt: at('20') });

    await heads.record(pr, { headSha: C, at: at('30') });
    expect(await heads.since(pr, at('25'))).toMatchObject({ headSha: C });
  });

  it('keeps one head per pull request whatever the case of its names and sha', async () => {
    const pr = pullRequest();
    await heads.record(
      { ...pr, owner: 'Acme', repo: 'Widgets' },
      { headSha: 'ABC'.repeat(13) + 'A', at: at('40') },
    );
    expect(await heads.since(pr, at('00'))).toMatchObject({
      ...pr,
      headSha: 'abc'.repeat(13) + 'a',
    });
    expect(await heads.since({ ...pr, owner: 'ACME' }, at('00'))).not.toBeNull();
  });
});
