import { randomBytes } from 'node:crypto';
import { LoopbackApi, type RecordedCall } from '../http/loopback-api.js';
import { githubAppKeys } from './app-env.js';

/** An App the fake registered from a manifest, and where (`null`: the person's own account). */
export interface FakeRegisteredApp {
  id: number;
  slug: string;
  organization: string | null;
  manifest: Record<string, unknown>;
  /** What the conversion answers: the App's credentials among them. */
  conversion: Record<string, unknown>;
}

/**
 * GitHub's App manifest flow on loopback, in its wire format: the browser's form post of a
 * `manifest` to `/settings/apps/new` (or `/organizations/:org/settings/apps/new`) registers the
 * App as if the person clicked "Create GitHub App" and sends the browser back to the manifest's
 * `redirect_url` with a temporary `code` and the `state` it was given; `POST
 * /app-manifests/:code/conversions` answers 201 with the App (id, slug, pem, webhook_secret,
 * client_id, client_secret, ...) once per code, 404 after.
 */
export class FakeGithubAppManifest extends LoopbackApi {
  /** Every App registered, in order. */
  readonly apps: FakeRegisteredApp[] = [];
  private readonly codes = new Map<string, FakeRegisteredApp>();
  private nextId = 900_001;

  constructor() {
    super();
    this.route('POST', '/settings/apps/new', (call) => this.register(call, null));
    this.route('POST', '/organizations/:org/settings/apps/new', (call, { org = '' }) =>
      this.register(call, org),
    );
    this.route('POST', '/app-manifests/:code/conversions', (_call, { code = '' }) => {
      const app = this.codes.get(code);
      this.codes.delete(code);
      if (!app) {
        return {
          status: 404,
          body: {
            message: 'Not Found',
            documentation_url:
              'https://docs.github.com/rest/apps/apps#create-a-github-app-from-a-manifest',
          },
        };
      }
      return { status: 201, body: app.conversion };
    });
  }

  private register(call: RecordedCall, organization: string | null) {
    const manifest = parseManifest(call.body?.['manifest']);
    const redirect = manifest?.['redirect_url'];
    if (!manifest || typeof manifest['url'] !== 'string' || typeof redirect !== 'string') {
      return { status: 422, body: 'fake: the manifest needs url and redirect_url' };
    }
    const app = this.registered(manifest, organization);
    const code = randomBytes(20).toString('hex');
    this.codes.set(code, app);
    this.apps.push(app);
    const back = new URL(redirect);
    back.searchParams.set('code', code);
    if (call.query['state'] !== undefined) back.searchParams.set('state', call.query['state']);
    return { status: 302, headers: { location: back.toString() } };
  }

  private registered(manifest: Record<string, unknown>, organization: string | null) {
    const id = this.nextId++;
    const name = typeof manifest['name'] === 'string' ? manifest['name'] : `app-${id}`;
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const owner = organization ?? 'octocat';
    const { privateKey } = githubAppKeys();
    const now = new Date().toISOString();
    const conversion = {
      id,
      slug,
      node_id: `A_kwDO${id}`,
      owner: { login: owner, id: 1, type: organization ? 'Organization' : 'User' },
      name,
      description: manifest['description'] ?? null,
      external_url: manifest['url'],
      html_url: `https://github.com/apps/${slug}`,
      created_at: now,
      updated_at: now,
      permissions: manifest['default_permissions'] ?? {},
      events: manifest['default_events'] ?? [],
      client_id: `Iv23li${randomBytes(7).toString('hex')}`,
      client_secret: randomBytes(20).toString('hex'),
      webhook_secret: randomBytes(20).toString('hex'),
      pem: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
    };
    return { id, slug, organization, manifest, conversion };
  }
}

function parseManifest(value: unknown): Record<string, unknown> | null {
  if (typeof value !== 'string') return null;
  try {
    const parsed: unknown = JSON.parse(value);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}
