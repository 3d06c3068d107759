import {
  parseRepositoryRoute,
  repositoryNamedIn,
  RepositoryRoutes,
  resolveRepository,
} from './repository-routes.js';

describe('repositoryNamedIn', () => {
  it.each([
    ['repo:acme/widgets please fix the build', { owner: 'acme', name: 'widgets' }],
    ['<@U1> fix it in repo: acme/widgets.', { owner: 'acme', name: 'widgets' }],
    ['fix it (Repo:Acme/widgets.js)', { owner: 'Acme', name: 'widgets.js' }],
    ['`repo:acme/api-v2`, thanks', { owner: 'acme', name: 'api-v2' }],
  ])('reads %j', (text, expected) => {
    expect(repositoryNamedIn(text)).toEqual(expected);
  });

  it.each([
    'fix the build in acme/widgets',
    'myrepo:acme/widgets',
    'repo:acme',
    'repo:-acme/widgets',
    'repo:acme/',
  ])('names no repository in %j', (text) => {
    expect(repositoryNamedIn(text)).toBeUndefined();
  });
});

describe('RepositoryRoutes', () => {
  const routes = new RepositoryRoutes(
    [
      parseRepositoryRoute('slack:C0123=acme/widgets')!,
      parseRepositoryRoute('linear:ENG=acme/api')!,
    ],
    { owner: 'acme', name: 'monorepo' },
  );

  it("routes a trigger by its channel or team, case-insensitively, else to the team's default", () => {
    expect(routes.defaultFor('slack', 'C0123')).toEqual({ owner: 'acme', name: 'widgets' });
    expect(routes.defaultFor('linear', 'eng')).toEqual({ owner: 'acme', name: 'api' });
    expect(routes.defaultFor('slack', 'C999')).toEqual({ owner: 'acme', name: 'monorepo' });
    expect(routes.defaultFor('jira', undefined)).toEqual({ owner: 'acme', name: 'monorepo' });
    // A container is only looked up under its own source.
    expect(routes.defaultFor('jira', 'C0123')).toEqual({ owner: 'acme', name: 'monorepo' });
  });

  it('has nothing to say when nothing is configured', () => {
    const none = new RepositoryRoutes([], undefined);
    expect(none.configured).toBe(false);
    expect(none.defaultFor('slack', 'C0123')).toBeUndefined();
  });

  it('refuses malformed routes', () => {
    for (const entry of ['slack:C1', 'github:acme=acme/x', 'slack:C1=acme', 'slack:=acme/x']) {
      expect(parseRepositoryRoute(entry)).toBeUndefined();
    }
  });
});

describe('resolveRepository', () => {
  const routes = new RepositoryRoutes([parseRepositoryRoute('slack:C0123=acme/widgets')!], {
    owner: 'acme',
    name: 'monorepo',
  });
  const neverAsked = () => Promise.reject(new Error('the thread must not be looked up'));
  const slack = { source: 'slack' as const, container: 'C0123', text: 'fix the build' };

  it("keeps a trigger's own repository, then the one its message names", async () => {
    const own = { owner: 'acme', name: 'jira-app' };
    expect(await resolveRepository({ ...slack, repository: own }, routes, neverAsked)).toBe(own);
    expect(
      await resolveRepository({ ...slack, text: 'fix it in repo:acme/api' }, routes, neverAsked),
    ).toEqual({ owner: 'acme', name: 'api' });
  });

  it('routes a new thread by its channel, else to the default; a thread with one keeps it', async () => {
    const fresh = () => Promise.resolve(false);
    expect(await resolveRepository(slack, routes, fresh)).toEqual({
      owner: 'acme',
      name: 'widgets',
    });
    expect(await resolveRepository({ ...slack, container: 'C9' }, routes, fresh)).toEqual({
      owner: 'acme',
      name: 'monorepo',
    });
    expect(await resolveRepository(slack, routes, () => Promise.resolve(true))).toBeUndefined();
    expect(await resolveRepository(slack, new RepositoryRoutes([], undefined), neverAsked)).toBe(
      undefined,
    );
  });
});
