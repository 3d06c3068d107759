import type { GithubActorFacts } from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import { describe, expect, it } from '@jest/globals';
import {
  CachedOrgMembership,
  PublicRepoGate,
  publicRepoGateOf,
  type OrgMembershipCheck,
} from './public-repo-gate.js';

const orgRepo = { owner: 'acme', name: 'widgets', ownerIsOrganization: true, private: false };
const userRepo = { owner: 'octocat', name: 'hello', ownerIsOrganization: false, private: false };

/** A membership check over a fixed member list, recording who was asked about. */
function members(...logins: string[]): OrgMembershipCheck & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    isMember: (org, login) => {
      asked.push(`${org}:${login}`);
      return Promise.resolve(logins.includes(login));
    },
  };
}

/** Without a GitHub App there is no membership check. */
const noApp = null;

const check = (overrides: Partial<GithubActorFacts>): GithubActorFacts => ({
  repository: orgRepo,
  login: 'stranger',
  userType: 'User',
  ...overrides,
});

describe('the public-repository gate', () => {
  it('lets everyone through on a private repository, and when turned off', async () => {
    const membership = members();
    const privateRepo = { ...orgRepo, private: true };
    expect(
      await new PublicRepoGate(true, membership).refusal(check({ repository: privateRepo })),
    ).toBeNull();
    expect(await new PublicRepoGate(false, membership).refusal(check({}))).toBeNull();
    expect(membership.asked).toEqual([]);
  });

  it('lets bots and authors the payload calls OWNER or MEMBER through without asking GitHub', async () => {
    const membership = members();
    const gate = new PublicRepoGate(true, membership);
    expect(await gate.refusal(check({ userType: 'Bot', login: 'dependabot[bot]' }))).toBeNull();
    expect(await gate.refusal(check({ association: 'MEMBER' }))).toBeNull();
    expect(await gate.refusal(check({ association: 'OWNER' }))).toBeNull();
    expect(membership.asked).toEqual([]);
  });

  it('asks GitHub about everyone else on an organization repository', async () => {
    const membership = members('alice');
    const gate = new PublicRepoGate(true, membership);
    expect(await gate.refusal(check({ login: 'alice', association: 'CONTRIBUTOR' }))).toBeNull();
    expect(await gate.refusal(check({ login: 'mallory', association: 'NONE' }))).toBe(
      'on public repository acme/widgets, @mallory is not a member of acme',
    );
    expect(await gate.refusal(check({ login: 'outside', association: 'COLLABORATOR' }))).toMatch(
      /not a member/,
    );
    expect(membership.asked).toEqual(['acme:alice', 'acme:mallory', 'acme:outside']);
  });

  it('stays shut when membership cannot be checked (no App)', async () => {
    expect(await new PublicRepoGate(true, noApp).refusal(check({}))).toMatch(
      /cannot be checked \(GITHUB_APP_ID/,
    );
  });

  it('throws, admitting no one and refusing no one, when the membership question fails', async () => {
    const failing: OrgMembershipCheck = {
      isMember: () => Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub 502')),
    };
    await expect(new PublicRepoGate(true, failing).refusal(check({}))).rejects.toThrow(
      'GitHub 502',
    );
  });

  it('says which actors pass on the payload alone: those refusal admits without a call', async () => {
    const gate = new PublicRepoGate(true, members());
    expect(gate.passes(check({ repository: { ...orgRepo, private: true } }))).toBe(true);
    expect(gate.passes(check({ userType: 'Bot' }))).toBe(true);
    expect(gate.passes(check({ association: 'OWNER' }))).toBe(true);
    expect(new PublicRepoGate(false, noApp).passes(check({}))).toBe(true);
    expect(gate.passes(check({ association: 'CONTRIBUTOR' }))).toBe(false);
    expect(gate.passes(check({ repository: userRepo, login: 'octocat' }))).toBe(false);
  });

  it('on a personal repository, admits its owner and collaborators only', async () => {
    const gate = new PublicRepoGate(true, members());
    const on = (login: string, association?: string) =>
      gate.refusal(check({ repository: userRepo, login, association }));
    expect(await on('Octocat')).toBeNull();
    expect(await on('friend', 'COLLABORATOR')).toBeNull();
    expect(await on('stranger', 'NONE')).toMatch(/neither its owner nor a collaborator/);
  });
});

describe('CachedOrgMembership', () => {
  it('keeps a yes and a no per organization and login, case-insensitively, for its time', async () => {
    const membership = members('alice');
    let now = 0;
    const kept = new CachedOrgMembership(membership, { keepMs: 1_000, now: () => now });
    const gate = new PublicRepoGate(true, kept);

    expect(await gate.refusal(check({ login: 'mallory' }))).toMatch(/not a member/);
    expect(await gate.refusal(check({ login: 'Mallory' }))).toMatch(/not a member/);
    expect(await gate.refusal(check({ login: 'alice' }))).toBeNull();
    expect(await gate.refusal(check({ login: 'alice' }))).toBeNull();
    expect(membership.asked).toEqual(['acme:mallory', 'acme:alice']);

    now = 1_000;
    expect(await gate.refusal(check({ login: 'mallory' }))).toMatch(/not a member/);
    expect(membership.asked).toEqual(['acme:mallory', 'acme:alice', 'acme:mallory']);
  });

  it('keeps no failure: the next question asks GitHub again', async () => {
    let fails = true;
    const asked: string[] = [];
    const kept = new CachedOrgMembership(
      {
        isMember: (_org, login) => {
          asked.push(login);
          return fails
            ? Promise.reject(new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub 502'))
            : Promise.resolve(false);
        },
      },
      { now: () => 0 },
    );

    await expect(kept.isMember('acme', 'mallory', orgRepo)).rejects.toThrow('GitHub 502');
    fails = false;
    expect(await kept.isMember('acme', 'mallory', orgRepo)).toBe(false);
    expect(await kept.isMember('acme', 'mallory', orgRepo)).toBe(false);
    expect(asked).toEqual(['mallory', 'mallory']);
  });
});

describe('publicRepoGateOf (the gate as dispatch and the reviewer hold it)', () => {
  const access = (publicRepoGateCacheMs: number) => ({
    publicRepoOrgGate: true,
    publicRepoGateCacheMs,
  });

  it("keeps GitHub's answers for the configured time, and asks every time at 0", async () => {
    const kept = members();
    const keptGate = publicRepoGateOf(access(60_000), kept, () => 0);
    await keptGate.refusal(check({ login: 'mallory' }));
    await keptGate.refusal(check({ login: 'mallory' }));
    expect(kept.asked).toEqual(['acme:mallory']);

    const unkept = members();
    const unkeptGate = publicRepoGateOf(access(0), unkept, () => 0);
    await unkeptGate.refusal(check({ login: 'mallory' }));
    await unkeptGate.refusal(check({ login: 'mallory' }));
    expect(unkept.asked).toEqual(['acme:mallory', 'acme:mallory']);
  });

  it('stays shut without an App, whatever the cache', async () => {
    expect(await publicRepoGateOf(access(60_000), noApp).refusal(check({}))).toMatch(
      /cannot be checked/,
    );
  });
});
