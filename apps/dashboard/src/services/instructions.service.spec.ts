import { describe, expect, it } from '@jest/globals';
import type { UserInstructionsRepository, UserInstructionsRow } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import { strictMock } from '@caravel/testing/doubles';
import type { Caller, Role } from '../auth/session.types.js';
import { InstructionsService } from './instructions.service.js';

function person(login: string, role: Role = 'member'): Caller {
  return {
    kind: 'person',
    session: { login, githubId: 1, name: null, avatarUrl: null, role, expiresAt: 0 },
  };
}

const AT = new Date('2026-06-01T00:00:00Z');

/** A strict double over a map: what is saved is found, what is removed is gone. */
function service() {
  const rows = new Map<string, string>([['github:hubot', 'Use pnpm.']]);
  const row = (subject: string): UserInstructionsRow => ({
    subject,
    instructions: rows.get(subject) ?? '',
    updatedAt: AT,
  });
  const store = strictMock<UserInstructionsRepository>(
    {
      find: (subject: string) => Promise.resolve(rows.has(subject) ? row(subject) : null),
      save: (subject: string, instructions: string) => {
        rows.set(subject, instructions);
        return Promise.resolve(row(subject));
      },
      remove: (subject: string) => Promise.resolve(rows.delete(subject)),
    },
    'instructions',
  );
  return { rows, instructions: new InstructionsService(store) };
}

async function refusal(work: () => Promise<unknown>): Promise<string> {
  const error = await work().then(
    () => null,
    (e: unknown) => e,
  );
  return isAppError(error) ? `${error.code}: ${error.message}` : 'allowed';
}

describe("people's standing instructions", () => {
  it('lets a person read, replace and forget their own', async () => {
    const { rows, instructions } = service();
    const octocat = person('octocat');
    expect(await instructions.get(octocat, 'github:octocat')).toEqual({
      identity: 'github:octocat',
      instructions: '',
      updatedAt: null,
    });
    await instructions.save(octocat, 'github:octocat', 'Answer in French.');
    expect(rows.get('github:octocat')).toBe('Answer in French.');
    await instructions.remove(octocat, 'github:octocat');
    expect(rows.has('github:octocat')).toBe(false);
  });

  it("refuses a member another person's, saying whose they may touch", async () => {
    const { rows, instructions } = service();
    const octocat = person('octocat');
    expect(await refusal(() => instructions.get(octocat, 'github:hubot'))).toBe(
      "FORBIDDEN: octocat may only read their own instructions (github:octocat); another person's are for admins",
    );
    expect(await refusal(() => instructions.save(octocat, 'github:hubot', 'x'))).toMatch(
      /^FORBIDDEN: octocat may only change their own/,
    );
    expect(await refusal(() => instructions.remove(octocat, 'github:hubot'))).toMatch(/FORBIDDEN/);
    expect(rows.get('github:hubot')).toBe('Use pnpm.');
  });

  it("lets admins and the machine token touch anyone's", async () => {
    const { rows, instructions } = service();
    await instructions.save(person('admin', 'admin'), 'github:hubot', 'Use yarn.');
    expect(rows.get('github:hubot')).toBe('Use yarn.');
    expect((await instructions.get({ kind: 'machine' }, 'github:hubot')).instructions).toBe(
      'Use yarn.',
    );
  });
});
