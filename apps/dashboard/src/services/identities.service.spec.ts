import type { IdentityLinks, IdentityRepository, IdentityRow } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { parseInput } from '../api/parse.js';
import { ROUTES } from '../api/routes.js';
import { IdentitiesService } from './identities.service.js';

const body = (raw: unknown) => parseInput(ROUTES.linkIdentity.body, raw, 'identity');

const row = (id: string, links: IdentityLinks): IdentityRow => ({
  id,
  githubLogin: links.githubLogin ?? null,
  slackUserId: links.slackUserId ?? null,
  email: links.email ?? null,
  linearUserId: links.linearUserId ?? null,
  jiraAccountId: links.jiraAccountId ?? null,
  displayName: links.displayName ?? '',
});

/** A unique violation as PostgreSQL reports it. */
const uniqueViolation = Object.assign(new Error('duplicate key value'), { code: '23505' });

async function codeOf(run: () => Promise<unknown>): Promise<string> {
  const error = await run().then(
    () => null,
    (e: unknown) => e,
  );
  if (!isAppError(error)) throw new Error(`expected a coded refusal, got ${String(error)}`);
  return error.code;
}

describe('IdentitiesService', () => {
  it('links new handles into a new identity, the login and email lower-cased', async () => {
    const inserted: IdentityLinks[] = [];
    const identities = strictMock<IdentityRepository>(
      {
        findBy: () => Promise.resolve(null),
        insert: (id: string, links: IdentityLinks) => {
          inserted.push(links);
          return Promise.resolve(row(id, links));
        },
      },
      'identities',
    );
    const linked = await new IdentitiesService(identities).link(
      body({ githubLogin: 'OctoCat', slackUserId: 'U024BE7LH', email: 'Octo@Acme.test' }),
    );
    expect(inserted).toEqual([
      { githubLogin: 'octocat', slackUserId: 'U024BE7LH', email: 'octo@acme.test' },
    ]);
    expect(linked.githubLogin).toBe('octocat');
  });

  it('refuses a handle another person holds (409), no handle at all (400), and an unknown id (404)', async () => {
    const identities = strictMock<IdentityRepository>(
      {
        findBy: () => Promise.resolve(null),
        insert: () => Promise.reject(uniqueViolation),
        delete: () => Promise.resolve(false),
      },
      'identities',
    );
    const service = new IdentitiesService(identities);
    expect(await codeOf(() => service.link(body({ githubLogin: 'hubot' })))).toBe('CONFLICT');
    expect(await codeOf(() => service.link(body({ displayName: 'Nobody' })))).toBe('BAD_REQUEST');
    expect(await codeOf(() => service.remove('3f1c2b1a-0f9e-4d8c-8b7a-6e5f4d3c2b1a'))).toBe(
      'NOT_FOUND',
    );
  });

  it('refuses a malformed handle before anything is looked up', () => {
    expect(() => body({ slackUserId: 'not a slack id' })).toThrow(/Slack user id/);
    expect(() => body({ githubLogin: 'octo cat' })).toThrow(/GitHub login/);
    expect(() => body({ githubLogin: 'octocat', token: 'x' })).toThrow();
  });
});
