import { generateKeyPairSync } from 'node:crypto';
import { FakeGitHub } from '@caravel/testing';
import { GitHubApp } from './github-app.js';
import { GitHubApi } from './github-client.js';
import { GitHubOrgStandings, ORG_STANDING_TTL_MS } from './github-org-membership.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

describe('GitHubOrgStandings (the App asks GitHub who belongs to an organization)', () => {
  let github: FakeGitHub;
  let now: number;
  let standings: GitHubOrgStandings;

  beforeEach(async () => {
    now = Date.parse('2030-01-01T00:00:00Z');
    github = new FakeGitHub({ now: () => now, app: { id: '42', publicKey } })
      .addRepository('acme/widgets', { installationId: 7 })
      .addOrgMember('acme', 'Alice', 'admin')
      .addOrgMember('acme', 'bob');
    await github.start();
    const app = new GitHubApp({ appId: '42', privateKey, baseUrl: github.origin, now: () => now });
    const api = new GitHubApi({
      baseUrl: github.origin,
      tokens: () => Promise.reject(new Error('no repository token')),
    });
    standings = new GitHubOrgStandings(api, app, { now: () => now });
  });

  afterEach(() => github.close());

  it("answers an owner's and a member's standing, and null for anyone else", async () => {
    expect(await standings.standingOf('acme', 'alice')).toEqual({ state: 'active', role: 'admin' });
    expect(await standings.standingOf('ACME', 'Bob')).toEqual({ state: 'active', role: 'member' });
    expect(await standings.standingOf('acme', 'mallory')).toBeNull();
  });

  it("asks with a members-only token of the App's installation on that organization", async () => {
    await standings.standingOf('acme', 'bob');

    const minted = github.callsTo({ path: '/app/installations/7/access_tokens' });
    expect(minted).toHaveLength(1);
    expect(minted[0]?.body).toEqual({ permissions: { members: 'read' } });
    expect(github.callsTo({ path: '/orgs/acme/installation' })).toHaveLength(1);
  });

  it('keeps an answer a few minutes, then sees that the person left', async () => {
    expect(await standings.standingOf('acme', 'bob')).not.toBeNull();
    github.removeOrgMember('acme', 'bob');
    now += ORG_STANDING_TTL_MS - 1;
    expect(await standings.standingOf('acme', 'bob')).not.toBeNull();
    now += 1;
    expect(await standings.standingOf('acme', 'bob')).toBeNull();
    expect(github.callsTo({ path: '/orgs/acme/memberships/bob' })).toHaveLength(2);
  });

  it('fails with a coded error when the App is not installed on the organization', async () => {
    await expect(standings.standingOf('globex', 'bob')).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
  });
});
