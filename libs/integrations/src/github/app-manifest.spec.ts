import { isAppError } from '@caravel/errors';
import {
  defaultAppName,
  GITHUB_APP_EVENTS,
  GITHUB_APP_PERMISSIONS,
  githubAppManifest,
} from './app-manifest.js';

describe("Caravel's GitHub App manifest", () => {
  it('sends webhooks to the ingress and signs in on the dashboard, each under its own URL', () => {
    const manifest = githubAppManifest({
      ingressUrl: 'https://hooks.example.com/',
      dashboardUrl: 'https://caravel.example.com/team/',
      redirectUrl: 'http://127.0.0.1:4567/callback',
      name: 'Caravel Acme',
    });
    expect(manifest).toMatchObject({
      name: 'Caravel Acme',
      url: 'https://caravel.example.com/team',
      hook_attributes: { url: 'https://hooks.example.com/webhooks/github', active: true },
      redirect_url: 'http://127.0.0.1:4567/callback',
      callback_urls: ['https://caravel.example.com/team/auth/github/callback'],
      public: false,
      request_oauth_on_install: false,
    });
  });

  it('serves both from one URL for the embedded host, named after its host by default', () => {
    const manifest = githubAppManifest({ ingressUrl: 'https://caravel.acme.dev' });
    expect(manifest.hook_attributes.url).toBe('https://caravel.acme.dev/webhooks/github');
    expect(manifest.callback_urls).toEqual(['https://caravel.acme.dev/auth/github/callback']);
    expect(manifest.name).toBe('Caravel caravel.acme.dev');
    expect(manifest).not.toHaveProperty('redirect_url');
  });

  it("keeps a long host's default name within GitHub's 34 characters", () => {
    expect(defaultAppName('https://a-very-long-host-name.internal.example.com').length).toBe(34);
  });

  it('asks for the permissions it lists, writing only what Caravel writes', () => {
    const { default_permissions: permissions } = githubAppManifest({
      ingressUrl: 'https://caravel.example.com',
    });
    expect(permissions).toEqual(GITHUB_APP_PERMISSIONS);
    const writes = Object.keys(permissions).filter(
      (name) => permissions[name as keyof typeof permissions] === 'write',
    );
    expect(writes.sort()).toEqual(['checks', 'contents', 'issues', 'pull_requests']);
    expect(permissions.members).toBe('read');
  });

  it('asks for workflows: write only when chosen, adding nothing else', () => {
    const chosen = githubAppManifest({
      ingressUrl: 'https://caravel.example.com',
      workflows: true,
    });
    expect(chosen.default_permissions).toEqual({ ...GITHUB_APP_PERMISSIONS, workflows: 'write' });
    expect(chosen.default_events).toEqual(
      githubAppManifest({ ingressUrl: 'https://caravel.example.com' }).default_events,
    );
    for (const workflows of [false, undefined]) {
      const plain = githubAppManifest({ ingressUrl: 'https://caravel.example.com', workflows });
      expect(plain.default_permissions).not.toHaveProperty('workflows');
    }
  });

  it('holds the permission GitHub wants for each event it subscribes to', () => {
    const manifest = githubAppManifest({ ingressUrl: 'https://caravel.example.com' });
    for (const event of manifest.default_events) {
      expect([event, manifest.default_permissions[GITHUB_APP_EVENTS[event]]]).toEqual([
        event,
        expect.stringMatching(/^(read|write)$/),
      ]);
    }
  });

  it.each([
    ['ftp://caravel.example.com', /http\(s\) URL/],
    ['https://caravel.example.com/?x=1', /without query/],
    ['caravel.example.com', /not a URL/],
  ])('refuses %s as the ingress URL', (ingressUrl, message) => {
    expect(() => githubAppManifest({ ingressUrl })).toThrow(message);
  });

  it('refuses a name GitHub would (empty, or over 34 characters)', () => {
    for (const name of ['', 'x'.repeat(35)]) {
      let failure: unknown;
      try {
        githubAppManifest({ ingressUrl: 'https://caravel.example.com', name });
      } catch (error) {
        failure = error;
      }
      expect(isAppError(failure) && failure.code).toBe('BAD_REQUEST');
    }
  });
});
