import { loadConfig, type EnvSource } from '@caravel/config';
import { AppError } from '@caravel/errors';
import {
  githubAppManifest,
  githubAppSettingsSchema,
  type GithubAppManifestOptions,
} from '@caravel/integrations';
import { portOption, UsageError, type ParsedCommand } from '../cli-args.js';
import {
  convertManifestCode,
  credentialsEnvText,
  CredentialsFile,
  type RegisteredApp,
} from './app-credentials.js';
import { runManifestFlow } from './manifest-flow.js';

/** What `caravel github-app` needs of the command line's IO. */
export interface GithubAppIo {
  out(text: string): void;
  onSignal(handler: (signal: string) => void): void;
}

/** Where `create` writes the credentials unless told (`--out`). */
export const DEFAULT_CREDENTIALS_FILE = 'caravel-github-app.env';
/** How long `create` waits for GitHub to come back. */
const WAIT_MINUTES = 15;

/** What `caravel github-app create` does, as the command line gives it. */
export interface CreateGithubAppOptions {
  manifest: GithubAppManifestOptions;
  org?: string | undefined;
  out: string;
  port: number;
  /** `GITHUB_HOST` (the form goes there) and `GITHUB_API_URL` (the code is traded there). */
  githubHost: string;
  apiUrl: string;
  /** Settles, with the error to end with, when the registration is given up. */
  abandoned: Promise<Error>;
  write(text: string): void;
}

/**
 * Registers Caravel's GitHub App through GitHub's manifest flow and writes its credentials to a
 * new file (0600); the file is claimed first, so an existing one stops everything before GitHub
 * is asked, and it is removed again when the flow ends without credentials.
 */
export async function createGithubApp(options: CreateGithubAppOptions): Promise<RegisteredApp> {
  const file = await CredentialsFile.reserve(options.out);
  let written = false;
  try {
    return await runManifestFlow({
      manifestFor: (redirectUrl) => githubAppManifest({ ...options.manifest, redirectUrl }),
      githubHost: options.githubHost,
      org: options.org,
      port: options.port,
      abandoned: options.abandoned,
      onListening: (page) =>
        options.write(
          `Open ${page} in a browser on this machine (over SSH: --port N and ssh -L N:127.0.0.1:N)\n` +
            `to register the App on ${options.org ? `the organization ${options.org}` : 'your account'} at ${options.githubHost}; waiting up to ${WAIT_MINUTES} minutes.\n`,
        ),
      complete: async (code) => {
        const app = await convertManifestCode(options.apiUrl, code);
        await file.write(credentialsEnvText(app, new Date()));
        written = true;
        return app;
      },
      done: (app) => `GitHub registered ${app.name}; its credentials are in ${options.out}.`,
    });
  } finally {
    if (!written) await file.discard();
  }
}

/** What to do with a registered App: install it, store its credentials, name its login. */
export function nextSteps(app: RegisteredApp, out: string): string {
  return `Registered the GitHub App "${app.name}" (${app.html_url}, id ${app.id}).
Its credentials are in ${out} (mode 0600): GITHUB_APP_ID, GITHUB_APP_PRIVATE_KEY,
GITHUB_WEBHOOK_SECRET, GITHUB_OAUTH_CLIENT_ID, GITHUB_OAUTH_CLIENT_SECRET.

Next:
  1. Install it on the repositories Caravel works on: ${app.html_url}/installations/new
  2. It comments as ${app.slug}[bot] and answers @${app.slug}: set GITHUB_BOT_HANDLE=${app.slug},
     REVIEWER_GITHUB_LOGIN=${app.slug}[bot] and ANALYZER_GITHUB_LOGIN=${app.slug}[bot].
  3. Helm: kubectl create secret generic caravel-secrets --from-env-file=${out}
     and install with --set secrets.existingSecret=caravel-secrets
     --set commonEnv.GITHUB_APP_ID=${app.id} --set commonEnv.GITHUB_OAUTH_CLIENT_ID=${app.client_id}
     (the chart gives each service only the secret keys it reads; the two ids are not secrets).
     Embedded: node --env-file=${out} apps/cli/dist/main.js start; Compose: env_file: ${out}.
  4. Then remove ${out}: the private key is in it.
`;
}

/** `--url`-like option: an absolute http(s) URL, or a UsageError naming it. */
function urlOption(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (!url || !/^https?:$/.test(url.protocol) || url.search || url.hash)
    throw new UsageError('github-app', `--${name} must be an http(s) URL, not '${value}'`);
  return value;
}

function manifestOptions(values: ParsedCommand['values']): GithubAppManifestOptions {
  const ingressUrl = urlOption('url', values['url']);
  if (!ingressUrl)
    throw new UsageError('github-app', "needs --url URL: Caravel's public URL (the ingress's)");
  const dashboardUrl = urlOption('dashboard-url', values['dashboard-url']);
  return {
    ingressUrl,
    ...(dashboardUrl ? { dashboardUrl } : {}),
    ...(values['name'] === undefined ? {} : { name: values['name'] }),
    ...(values['workflows'] === undefined ? {} : { workflows: true }),
  };
}

/** Ends the flow after {@link WAIT_MINUTES} or at Ctrl-C, with what to do then. */
function abandonment(io: GithubAppIo): Promise<Error> {
  return new Promise((resolve) => {
    const timer = setTimeout(
      () =>
        resolve(
          new AppError(
            'TIMEOUT',
            `GitHub did not come back within ${WAIT_MINUTES} minutes, so nothing was written: ` +
              'run caravel github-app create again and click Create GitHub App on the page it ' +
              'opens (if GitHub registered an App meanwhile, delete it first)',
          ),
        ),
      WAIT_MINUTES * 60_000,
    );
    timer.unref();
    io.onSignal((signal) =>
      resolve(new AppError('BAD_REQUEST', `${signal}: stopped; nothing was written`)),
    );
  });
}

/** `caravel github-app manifest|create`. */
export async function runGithubApp(
  { positionals, values }: ParsedCommand,
  env: EnvSource,
  io: GithubAppIo,
): Promise<number> {
  const [sub, ...extra] = positionals;
  if (sub !== 'manifest' && sub !== 'create')
    throw new UsageError(
      'github-app',
      sub === undefined ? 'needs a subcommand: manifest or create' : `unknown subcommand '${sub}'`,
    );
  if (extra.length > 0) throw new UsageError('github-app', `unexpected '${extra.join(' ')}'`);
  const manifest = manifestOptions(values);
  if (sub === 'manifest') {
    const only = ['org', 'out', 'port'].filter((name) => values[name] !== undefined);
    if (only.length > 0)
      throw new UsageError('github-app', `--${only.join(', --')}: for create only`);
    io.out(`${JSON.stringify(githubAppManifest(manifest), null, 2)}\n`);
    return 0;
  }
  const github = loadConfig(
    'caravel github-app',
    githubAppSettingsSchema.pick({ GITHUB_HOST: true, GITHUB_API_URL: true }),
    env,
  );
  const org = values['org'];
  if (org !== undefined && !/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/.test(org))
    throw new UsageError('github-app', `--org must be a GitHub organization's login, not '${org}'`);
  const out = values['out'] ?? DEFAULT_CREDENTIALS_FILE;
  const app = await createGithubApp({
    manifest,
    org,
    out,
    port: portOption('github-app', values['port']) ?? 0,
    githubHost: github.GITHUB_HOST,
    apiUrl: github.GITHUB_API_URL,
    abandoned: abandonment(io),
    write: (text) => io.out(text),
  });
  io.out(nextSteps(app, out));
  return 0;
}
