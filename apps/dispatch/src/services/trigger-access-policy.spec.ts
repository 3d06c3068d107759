import {
  TriggerReceivedV1,
  type DataOf,
  type GithubActorFacts,
  type RepositoryRef,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import {
  PublicRepoGate,
  RepositoryAccessPolicy,
  type GithubLoginLookup,
  type OrgMembershipCheck,
  type RepositoryPermission,
  type RepositoryPermissionLookup,
} from '@caravel/integrations';
import { strictMock } from '@caravel/testing/doubles';
import { describe, expect, it, jest } from '@jest/globals';
import { slackFollowUp } from '../testing/slack-follow-up.js';
import { repositoryChosenByPerson, TriggerAccessPolicy } from './trigger-access-policy.js';

type TriggerData = DataOf<typeof TriggerReceivedV1>;

const WIDGETS = { owner: 'acme', name: 'widgets' };
const PAYROLL = { owner: 'acme', name: 'payroll-private' };

/** A Slack follow-up in channel C1, whose place (route or default) is acme/widgets. */
function slack(overrides: Partial<TriggerData> = {}): TriggerData {
  return TriggerReceivedV1.dataSchema.parse(slackFollowUp(overrides));
}

function github(actor: Partial<GithubActorFacts>): TriggerData {
  return TriggerReceivedV1.dataSchema.parse({
    threadId: '00000000-0000-4000-8000-000000000002',
    source: 'github',
    deliveryId: 'guid-1',
    author: { externalId: actor.login ?? 'mallory' },
    text: '@caravel fix it',
    trusted: false,
    repository: WIDGETS,
    githubActor: {
      login: 'mallory',
      userType: 'User',
      association: 'NONE',
      repository: { ...WIDGETS, private: false, ownerIsOrganization: true },
      ...actor,
    },
  });
}

/** Ada (U0ADA, @ada) may read acme/payroll-private; Mallory (U0MALLORY, @mallory) may not. */
function policy(options: { members?: string[]; permissionFails?: Error } = {}) {
  const isMember = jest.fn((_org: string, login: string) =>
    Promise.resolve((options.members ?? []).includes(login)),
  );
  const githubLoginFor = jest.fn((actor: { externalId: string }) =>
    Promise.resolve(
      ({ U0ADA: 'ada', U0MALLORY: 'mallory' } as Record<string, string>)[actor.externalId] ?? null,
    ),
  );
  const permissionOf = jest.fn(
    (login: string, _repository: RepositoryRef): Promise<RepositoryPermission> =>
      options.permissionFails
        ? Promise.reject(options.permissionFails)
        : Promise.resolve(login === 'ada' ? 'write' : 'none'),
  );
  const subject = new TriggerAccessPolicy(
    new PublicRepoGate(true, strictMock<OrgMembershipCheck>({ isMember }, 'membership')),
    new RepositoryAccessPolicy(
      'github',
      strictMock<GithubLoginLookup>({ githubLoginFor }, 'logins'),
      strictMock<RepositoryPermissionLookup>({ permissionOf }, 'permissions'),
    ),
  );
  return { subject, isMember, permissionOf };
}

const noThread = () => Promise.reject(new Error('the thread is not read'));
const threadOn = (repository: RepositoryRef | undefined) => () => Promise.resolve(repository);

describe('repositoryChosenByPerson', () => {
  it("is the trigger's own repository, or its thread's, unless it is the place's", () => {
    expect(repositoryChosenByPerson(slack({ repository: PAYROLL }), undefined)).toEqual(PAYROLL);
    expect(repositoryChosenByPerson(slack(), PAYROLL)).toEqual(PAYROLL);
    expect(
      repositoryChosenByPerson(slack({ repository: { owner: 'Acme', name: 'Widgets' } }), PAYROLL),
    ).toBeUndefined();
    expect(repositoryChosenByPerson(slack(), WIDGETS)).toBeUndefined();
    expect(repositoryChosenByPerson(slack(), undefined)).toBeUndefined();
  });

  it('is any repository where the place has none, and none for GitHub or an older ingress', () => {
    expect(repositoryChosenByPerson(slack({ placeRepository: null }), PAYROLL)).toEqual(PAYROLL);
    expect(
      repositoryChosenByPerson(slack({ placeRepository: undefined }), PAYROLL),
    ).toBeUndefined();
    expect(repositoryChosenByPerson(github({}), PAYROLL)).toBeUndefined();
  });
});

describe('TriggerAccessPolicy', () => {
  it('refuses a follow-up on a thread whose repository a person chose, from someone who cannot see it', async () => {
    const { subject, permissionOf } = policy();

    const decision = await subject.decide(slack(), threadOn(PAYROLL));

    expect(decision).toMatchObject({
      allowed: false,
      check: 'repository_access',
      reason:
        'slack:U0MALLORY (@mallory) asked for acme/payroll-private, which @mallory has no access to on GitHub',
    });
    expect(permissionOf).toHaveBeenCalledWith('mallory', PAYROLL);
  });

  it('takes the follow-up of someone who can see it, and the first trigger that named it', async () => {
    const { subject } = policy();
    const ada = { author: { externalId: 'U0ADA' } };

    expect(await subject.decide(slack(ada), threadOn(PAYROLL))).toEqual({ allowed: true });
    expect(await subject.decide(slack({ ...ada, repository: PAYROLL }), noThread)).toEqual({
      allowed: true,
    });
  });

  it("asks nothing about the place's repository: anyone in the channel may use the admin's choice", async () => {
    const { subject, permissionOf } = policy();

    expect(await subject.decide(slack(), threadOn(WIDGETS))).toEqual({ allowed: true });
    expect(await subject.decide(slack({ repository: WIDGETS }), noThread)).toEqual({
      allowed: true,
    });
    expect(await subject.decide(slack({ placeRepository: undefined }), noThread)).toEqual({
      allowed: true,
    });
    expect(permissionOf).not.toHaveBeenCalled();
  });

  it('throws, deciding nothing, when GitHub does not answer', async () => {
    const outage = new AppError('DEPENDENCY_UNAVAILABLE', 'GitHub 502');
    const { subject } = policy({ permissionFails: outage });

    await expect(subject.decide(slack(), threadOn(PAYROLL))).rejects.toBe(outage);
  });

  it('gates a GitHub actor on a public organization repository by membership, unanswered', async () => {
    const { subject, isMember } = policy({ members: ['alice'] });

    expect(await subject.decide(github({ login: 'alice' }), noThread)).toEqual({ allowed: true });
    expect(await subject.decide(github({}), noThread)).toEqual({
      allowed: false,
      check: 'public_repo_gate',
      reason: 'on public repository acme/widgets, @mallory is not a member of acme',
    });
    expect(await subject.decide(github({ association: 'MEMBER', login: 'bob' }), noThread)).toEqual(
      {
        allowed: true,
      },
    );
    expect(isMember.mock.calls.map(([, login]) => login)).toEqual(['alice', 'mallory']);
  });
});
