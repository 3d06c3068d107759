import { AppError } from '@caravel/errors';
import { open, unlink, type FileHandle } from 'node:fs/promises';
import { z } from 'zod';

/** What GitHub's conversion of a manifest code gives: the App and its credentials. */
const conversionSchema = z.object({
  id: z.number().int().positive(),
  slug: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  name: z.string(),
  html_url: z.string(),
  owner: z.object({ login: z.string() }).nullish(),
  client_id: z.string().regex(/^\S+$/),
  client_secret: z.string().regex(/^\S+$/),
  webhook_secret: z.string().regex(/^\S+$/).nullable(),
  pem: z.string().includes('PRIVATE KEY'),
});

/** A GitHub App as registered from Caravel's manifest, with its credentials. */
export type RegisteredApp = z.infer<typeof conversionSchema>;

/** What to do when GitHub took the manifest but its credentials are out of reach. */
const REGISTERED_ALREADY =
  'GitHub may have registered the App already: delete it (its settings page, Advanced) before ' +
  'running caravel github-app create again, or generate its private key and client secret there';

/**
 * Trades the manifest flow's temporary `code` for the App (`POST
 * /app-manifests/{code}/conversions`, unauthenticated; the code is good once, for an hour).
 */
export async function convertManifestCode(apiUrl: string, code: string): Promise<RegisteredApp> {
  const url = `${apiUrl.replace(/\/+$/, '')}/app-manifests/${encodeURIComponent(code)}/conversions`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: {
        accept: 'application/vnd.github+json',
        'x-github-api-version': '2022-11-28',
        'user-agent': 'caravel-github-app',
      },
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `GitHub's API at ${apiUrl} did not answer (${why}): check GITHUB_API_URL and the network. ${REGISTERED_ALREADY}`,
    );
  }
  const body: unknown = await response.json().catch(() => null);
  if (response.status !== 201) {
    const message = (body as { message?: unknown } | null)?.message;
    throw new AppError(
      'PRECONDITION_FAILED',
      `GitHub refused to hand over the App (${response.status}${typeof message === 'string' ? `: ${message}` : ''}); ` +
        `a code is good once and for an hour. ${REGISTERED_ALREADY}`,
    );
  }
  const parsed = conversionSchema.safeParse(body);
  if (!parsed.success) {
    throw new AppError(
      'DEPENDENCY_UNAVAILABLE',
      `GitHub's answer lacks the App's credentials (${parsed.error.issues.map((issue) => issue.path.join('.')).join(', ')}). ${REGISTERED_ALREADY}`,
    );
  }
  return parsed.data;
}

/**
 * The env file of an App's five credentials, one `KEY=value` line each: the PEM's newlines
 * written as `\n`, which `GITHUB_APP_PRIVATE_KEY` reads back, so the file serves `kubectl create
 * secret generic --from-env-file`, Compose's `env_file` and `node --env-file` alike (none of them
 * reads a value over several lines the same way).
 */
export function credentialsEnvText(app: RegisteredApp, createdAt: Date): string {
  return [
    `# Caravel's GitHub App "${app.name.replace(/[\r\n]/g, ' ')}" (${app.html_url}), id ${app.id},`,
    `# registered ${createdAt.toISOString()} by caravel github-app create. Secret: keep it out of`,
    '# version control, and remove it once the values are stored where the services read them.',
    `GITHUB_APP_ID=${app.id}`,
    `GITHUB_APP_PRIVATE_KEY=${app.pem.trim().replace(/\r?\n/g, '\\n')}`,
    app.webhook_secret === null
      ? '# GITHUB_WEBHOOK_SECRET: GitHub made none; set one on the App page and here'
      : `GITHUB_WEBHOOK_SECRET=${app.webhook_secret}`,
    `GITHUB_OAUTH_CLIENT_ID=${app.client_id}`,
    `GITHUB_OAUTH_CLIENT_SECRET=${app.client_secret}`,
    '',
  ].join('\n');
}

/**
 * The credentials file, created empty (mode 0600, failing if the path exists) before GitHub is
 * asked anything, so the App's credentials always have a place to go; {@link write} fills it,
 * {@link discard} removes it when the flow ends without them.
 */
export class CredentialsFile {
  private constructor(
    readonly path: string,
    private readonly handle: FileHandle,
  ) {}

  static async reserve(path: string): Promise<CredentialsFile> {
    try {
      const handle = await open(path, 'wx', 0o600);
      // `open`'s mode passes through the umask: 0600 whatever it is.
      await handle.chmod(0o600);
      return new CredentialsFile(path, handle);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
        throw new AppError(
          'CONFLICT',
          `${path} exists; caravel github-app create writes a new file and never overwrites one: ` +
            'choose another --out, or move that file away (an empty one is left by an interrupted create)',
        );
      }
      throw new AppError(
        'PRECONDITION_FAILED',
        `cannot create ${path}: ${(error as Error).message}`,
      );
    }
  }

  async write(text: string): Promise<void> {
    await this.handle.writeFile(text, 'utf8');
    await this.handle.sync();
    await this.handle.close();
  }

  async discard(): Promise<void> {
    await this.handle.close().catch(() => undefined);
    await unlink(this.path).catch(() => undefined);
  }
}
