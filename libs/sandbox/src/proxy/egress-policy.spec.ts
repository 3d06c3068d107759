import {
  decideRequest,
  decideTunnel,
  hostAllowed,
  type EgressDecision,
  type EgressPolicyOptions,
} from './egress-policy.js';

const policy = {
  github: { gitHost: 'github.com', apiHost: 'api.github.com' },
  repository: 'Acme/Widgets',
  allowlist: ['registry.npmjs.org', '*.pythonhosted.org'],
};

describe('egress policy', () => {
  it('injects for git smart-HTTP and API calls on the thread repository only', () => {
    expect(
      decideRequest(
        policy,
        'github.com',
        '/acme/widgets.git/info/refs?service=git-upload-pack',
        'GET',
      ),
    ).toEqual({
      kind: 'github-git',
      repository: 'Acme/Widgets',
    });
    expect(
      decideRequest(policy, 'github.com:80', '/acme/widgets/git-upload-pack', 'POST').kind,
    ).toBe('github-git');
    expect(decideRequest(policy, 'api.github.com', '/repos/acme/widgets/pulls', 'GET').kind).toBe(
      'github-api',
    );
    expect(decideRequest(policy, 'api.github.com', '/repos/acme/widgets', 'GET').kind).toBe(
      'github-api',
    );
  });

  it('gives a sandbox its repository to read, never to write: no push, no API call but a read', () => {
    const advertise = '/acme/widgets.git/info/refs?service=git-receive-pack';
    expect(decideRequest(policy, 'github.com', advertise, 'GET')).toEqual({
      kind: 'deny',
      message: expect.stringContaining('commit_and_open_pr') as unknown,
    });
    expect(decideRequest(policy, 'github.com', '/acme/widgets/git-receive-pack', 'POST').kind).toBe(
      'deny',
    );
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const write = decideRequest(
        policy,
        'api.github.com',
        '/repos/acme/widgets/pulls/7/reviews',
        method,
      );
      expect(write).toEqual({
        kind: 'deny',
        message: expect.stringContaining(
          `${method} /repos/acme/widgets/pulls/7/reviews`,
        ) as unknown,
      });
    }
    expect(
      decideRequest(policy, 'api.github.com', '/repos/acme/widgets/pulls/7', 'HEAD').kind,
    ).toBe('github-api');
  });

  it("lets the broker's own proxy push, and still only read the API", () => {
    const broker = { ...policy, allowPush: true };
    const advertise = '/acme/widgets.git/info/refs?service=git-receive-pack';
    expect(decideRequest(broker, 'github.com', advertise, 'GET').kind).toBe('github-git');
    expect(decideRequest(broker, 'github.com', '/acme/widgets/git-receive-pack', 'POST').kind).toBe(
      'github-git',
    );
    expect(decideRequest(broker, 'api.github.com', '/repos/acme/widgets/merges', 'POST').kind).toBe(
      'deny',
    );
  });

  it('refuses another repository, other GitHub paths and unknown hosts, saying why', () => {
    const other = decideRequest(policy, 'github.com', '/acme/other.git/info/refs', 'GET');
    expect(other).toEqual({
      kind: 'deny',
      message: expect.stringContaining('acme/other') as unknown,
    });
    expect(
      decideRequest(policy, 'api.github.com', '/repos/acme/widgets-fork/pulls', 'GET').kind,
    ).toBe('deny');
    expect(decideRequest(policy, 'api.github.com', '/graphql', 'GET').kind).toBe('deny');
    expect(decideRequest(policy, 'github.com', '/acme/widgets/archive/main.zip', 'GET').kind).toBe(
      'deny',
    );
    const unknown = decideRequest(policy, 'evil.example:8080', '/', 'GET');
    expect(unknown).toEqual({
      kind: 'deny',
      message: expect.stringContaining('requests to evil.example are blocked') as unknown,
    });
  });

  it('passes allowlisted hosts through, exact or by wildcard, never their look-alikes', () => {
    expect(decideRequest(policy, 'registry.npmjs.org', '/left-pad', 'GET').kind).toBe(
      'pass-through',
    );
    expect(hostAllowed('files.pythonhosted.org', policy.allowlist)).toBe(true);
    expect(hostAllowed('pythonhosted.org.evil.example', policy.allowlist)).toBe(false);
    expect(hostAllowed('registry.npmjs.org.evil.example', policy.allowlist)).toBe(false);
    expect(hostAllowed('127.0.0.1', policy.allowlist)).toBe(false);
  });

  it('tunnels only to allowlisted hosts, never to GitHub', () => {
    expect(decideTunnel(policy, 'registry.npmjs.org:443').kind).toBe('pass-through');
    expect(decideTunnel(policy, 'github.com:443')).toEqual({
      kind: 'deny',
      message: expect.stringContaining('http://github.com/') as unknown,
    });
    expect(decideTunnel(policy, '127.0.0.1:5432').kind).toBe('deny');
  });

  it('tells a GitHub on its own port from other services on the same host', () => {
    const local = { ...policy, github: { gitHost: '127.0.0.1:3000', apiHost: '127.0.0.1:3000' } };
    expect(decideRequest(local, '127.0.0.1:3000', '/acme/widgets.git/info/refs', 'GET').kind).toBe(
      'github-git',
    );
    expect(decideRequest(local, '127.0.0.1:5432', '/acme/widgets.git/info/refs', 'GET')).toEqual({
      kind: 'deny',
      message: expect.stringContaining('requests to 127.0.0.1 are blocked') as unknown,
    });
    expect(decideRequest(local, '127.0.0.1', '/acme/widgets.git/info/refs', 'GET').kind).toBe(
      'deny',
    );
    expect(decideRequest(local, '127.0.0.1:3000', '/repos/acme/widgets/pulls', 'GET').kind).toBe(
      'github-api',
    );
    expect(decideRequest(local, '127.0.0.1:3000', '/acme/widgets/archive/main.zip', 'GET')).toEqual(
      {
        kind: 'deny',
        message: expect.stringContaining('only /repos/Acme/Widgets/... is served') as unknown,
      },
    );
  });

  it('refuses every GitHub request for a thread without a repository there', () => {
    const none = { ...policy, repository: null };
    expect(decideRequest(none, 'github.com', '/acme/widgets.git/info/refs', 'GET')).toEqual({
      kind: 'deny',
      message: expect.stringContaining('has no GitHub repository') as unknown,
    });
    expect(decideRequest(none, 'api.github.com', '/repos/acme/widgets', 'GET').kind).toBe('deny');
    expect(decideRequest(none, 'api.github.com', '/user', 'GET')).toEqual({
      kind: 'deny',
      message: expect.stringContaining('no GitHub repository; /user was refused') as unknown,
    });
    expect(decideRequest(none, 'registry.npmjs.org', '/left-pad', 'GET').kind).toBe('pass-through');
  });

  describe('with public GitHub reads (a task build, no repository)', () => {
    const build = { ...policy, repository: null, publicGitHubReads: true };
    const agent = { ...policy, publicGitHubReads: true };
    const upload = 'info/refs?service=git-upload-pack';
    const both = `${upload}&service=git-receive-pack`;
    const cases: [string, EgressPolicyOptions, string, string, string, EgressDecision['kind']][] = [
      [
        "a clone's ref advertisement",
        build,
        'github.com',
        `/psf/requests.git/${upload}`,
        'GET',
        'github-public',
      ],
      [
        "a clone's pack",
        build,
        'github.com',
        '/psf/requests/git-upload-pack',
        'POST',
        'github-public',
      ],
      [
        'a tag archive',
        build,
        'github.com',
        '/psf/requests/archive/refs/tags/v2.32.3.tar.gz',
        'GET',
        'github-public',
      ],
      [
        'a branch zip',
        build,
        'github.com',
        '/psf/requests/archive/main.zip',
        'HEAD',
        'github-public',
      ],
      ['a tarball', build, 'github.com', '/psf/requests/tarball/main', 'GET', 'github-public'],
      [
        "a push's ref advertisement",
        build,
        'github.com',
        '/psf/requests.git/info/refs?service=git-receive-pack',
        'GET',
        'deny',
      ],
      ["a push's pack", build, 'github.com', '/psf/requests/git-receive-pack', 'POST', 'deny'],
      ['a push hidden behind a fetch', build, 'github.com', `/psf/requests/${both}`, 'GET', 'deny'],
      [
        'an archive written to',
        build,
        'github.com',
        '/psf/requests/archive/main.zip',
        'POST',
        'deny',
      ],
      ['another github.com page', build, 'github.com', '/login', 'GET', 'deny'],
      [
        'an archive path leading elsewhere',
        build,
        'github.com',
        `/a/b/archive/x/../../${upload}`,
        'GET',
        'deny',
      ],
      ['a repository named ..', build, 'github.com', '/psf/%2e%2e/info/refs', 'GET', 'deny'],
      [
        'a push behind an archive path',
        build,
        'github.com',
        '/psf/requests/archive/x?service=git-receive-pack',
        'GET',
        'deny',
      ],
      ['the API', build, 'api.github.com', '/repos/psf/requests', 'GET', 'deny'],
      [
        "the thread's repository, credentialed",
        agent,
        'github.com',
        '/acme/widgets/git-upload-pack',
        'POST',
        'github-git',
      ],
      [
        "a push to the thread's repository",
        agent,
        'github.com',
        '/acme/widgets/git-receive-pack',
        'POST',
        'deny',
      ],
      [
        'another repository, anonymous',
        agent,
        'github.com',
        '/acme/other/git-upload-pack',
        'POST',
        'github-public',
      ],
    ];

    it.each(cases)('decides %s', (_what, options, host, path, method, kind) => {
      expect(decideRequest(options, host, path, method).kind).toBe(kind);
    });

    it('says a push is refused, and still opens no HTTPS tunnel to GitHub', () => {
      expect(decideRequest(build, 'github.com', '/psf/requests/git-receive-pack', 'POST')).toEqual({
        kind: 'deny',
        message: expect.stringContaining('GitHub is read-only here') as unknown,
      });
      expect(decideTunnel(build, 'github.com:443').kind).toBe('deny');
    });
  });
});
