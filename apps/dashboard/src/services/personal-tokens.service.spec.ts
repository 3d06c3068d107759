import type { PersonalTokenRepository, PersonalTokenRow } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it } from '@jest/globals';
import type { Caller } from '../auth/session.types.js';
import { personCaller } from '../testing/callers.js';
import { PersonalTokensService } from './personal-tokens.service.js';

const NOW = new Date('2026-12-01T10:00:00Z');

function row(id: string, login: string): PersonalTokenRow {
  return {
    id,
    login,
    githubId: 7,
    name: `${login}'s`,
    scope: 'act',
    secretSha256: 'unused',
    createdAt: NOW,
    expiresAt: new Date(NOW.getTime() + 86_400_000),
    lastUsedAt: null,
    revokedAt: null,
  };
}

/** Two people's tokens; every revocation the service asks for is noted. */
function service() {
  const rows = [row('aaaaaaaaaaaaaaaa', 'octocat'), row('bbbbbbbbbbbbbbbb', 'leaver')];
  const revoked: string[] = [];
  const repository = strictMock<PersonalTokenRepository>(
    {
      get: (id: string) => Promise.resolve(rows.find((r) => r.id === id) ?? null),
      listFor: (login: string) => Promise.resolve(rows.filter((r) => r.login === login)),
      revoke: (id: string, login: string) => {
        const found = rows.some((r) => r.id === id && r.login === login);
        if (found) revoked.push(`${login}:${id}`);
        return Promise.resolve(found);
      },
    },
    'personal tokens',
  );
  return { tokens: new PersonalTokensService(repository), revoked };
}

async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
    return 'done';
  } catch (error) {
    return isAppError(error) ? `${error.code}: ${error.message}` : String(error);
  }
}

const member = personCaller('octocat');
const admin = personCaller('hubot', 'admin');
const machine: Caller = { kind: 'machine' };

describe('PersonalTokensService: whose tokens a caller lists and revokes', () => {
  it("lets a person list and revoke only their own, and never learn of another's", async () => {
    const { tokens, revoked } = service();
    expect((await tokens.list(member)).map((t) => t.id)).toEqual(['aaaaaaaaaaaaaaaa']);
    expect(await outcome(() => tokens.list(member, 'leaver'))).toBe(
      'FORBIDDEN: octocat may only list their own tokens; another person’s are for admins',
    );
    expect(await outcome(() => tokens.revoke(member, 'bbbbbbbbbbbbbbbb'))).toBe(
      'NOT_FOUND: octocat has no live token bbbbbbbbbbbbbbbb',
    );
    await tokens.revoke(member, 'aaaaaaaaaaaaaaaa');
    expect(revoked).toEqual(['octocat:aaaaaaaaaaaaaaaa']);
  });

  it("lets an admin or the machine token list and revoke a person's tokens (someone who left)", async () => {
    const { tokens, revoked } = service();
    expect((await tokens.list(admin, 'leaver')).map((t) => t.id)).toEqual(['bbbbbbbbbbbbbbbb']);
    expect((await tokens.list(machine, 'leaver')).map((t) => t.id)).toEqual(['bbbbbbbbbbbbbbbb']);
    expect(await outcome(() => tokens.list(machine))).toBe(
      'BAD_REQUEST: the machine token names whose tokens to list: ?login=<GitHub login>',
    );
    await tokens.revoke(admin, 'bbbbbbbbbbbbbbbb');
    await tokens.revoke(machine, 'aaaaaaaaaaaaaaaa');
    expect(revoked).toEqual(['leaver:bbbbbbbbbbbbbbbb', 'octocat:aaaaaaaaaaaaaaaa']);
  });
});
