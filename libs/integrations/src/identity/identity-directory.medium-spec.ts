import { randomUUID } from 'node:crypto';
import { IdentityRepository, isUniqueViolation, openDatabase, type Database } from '@caravel/db';
import { describeEachDatabase } from '@caravel/testing';
import { IdentityDirectory } from './identity-directory.js';

await describeEachDatabase('identity directory', openDatabase, (target) => {
  let database: Database;
  let directory: IdentityDirectory;

  beforeAll(async () => {
    database = await target.open();
    directory = new IdentityDirectory(new IdentityRepository(database.db));
  });

  afterAll(async () => {
    await database?.close();
  });

  it('maps a Slack user and a Linear email to one GitHub login, case-insensitively', async () => {
    const n = randomUUID().slice(0, 8);
    const first = await directory.link({ githubLogin: `Octo-${n}`, slackUserId: `U${n}` });
    const second = await directory.link({ slackUserId: `U${n}`, email: `Octo.${n}@Acme.test` });

    expect(second.id).toBe(first.id);
    await expect(directory.githubLoginFor({ source: 'slack', externalId: `U${n}` })).resolves.toBe(
      `octo-${n}`,
    );
    await expect(
      directory.githubLoginFor({ source: 'linear', externalId: `octo.${n}@acme.TEST` }),
    ).resolves.toBe(`octo-${n}`);
    await expect(
      directory.githubLoginFor({ source: 'github', externalId: `OCTO-${n}` }),
    ).resolves.toBe(`octo-${n}`);
  });

  it('finds a Linear author by the Linear user id its webhooks name, as well as by email', async () => {
    const n = randomUUID().slice(0, 8);
    // A Linear comment's webhook names its author by Linear user id (actor.id), not by email.
    await directory.link({ githubLogin: `ada-${n}`, linearUserId: `lin-user-${n}` });

    await expect(
      directory.githubLoginFor({ source: 'linear', externalId: `lin-user-${n}` }),
    ).resolves.toBe(`ada-${n}`);
  });

  it('knows nobody it was not told about, and refuses to give one handle to two people', async () => {
    const n = randomUUID().slice(0, 8);
    await expect(directory.find({ source: 'jira', externalId: `acc-${n}` })).resolves.toBeNull();
    await expect(directory.find({ source: 'synthetic', externalId: 'x' })).resolves.toBeNull();

    await directory.link({ githubLogin: `a-${n}` });
    await directory.link({ slackUserId: `S${n}` });
    const clash = await directory
      .link({ githubLogin: `a-${n}`, slackUserId: `S${n}` })
      .catch((error: unknown) => error);
    expect(isUniqueViolation(clash)).toBe(true);
  });
});
