import { commaList, distributedServiceSchema, documented, serviceConfigOf } from '@caravel/config';
import {
  githubAppSettingsSchema,
  githubConfigOf,
  githubTokenSettingsSchema,
  type GitHubConfig,
} from '@caravel/integrations';
import { z } from 'zod';

/** An origin (`scheme://host[:port]`, no path): what browsers send in `Origin`. */
const origin = z
  .url()
  .transform((text) => new URL(text).origin)
  .refine((text) => text !== 'null', 'must be an http(s) origin');

/** A comma-separated list of origins; each entry that is not one is named in the problem. */
const originList = () =>
  commaList().transform((entries, context) =>
    entries.flatMap((entry) => {
      const parsed = origin.safeParse(entry);
      if (parsed.success) return [parsed.data];
      context.addIssue({
        code: 'custom',
        message: `"${entry}" is not an http(s) origin (scheme://host[:port])`,
      });
      return [];
    }),
  );

/**
 * The dashboard's own environment keys, beyond the common service keys; the same keys configure
 * the embedded host. Sign-in needs both halves of the OAuth pair ({@link checkDashboardSignIn}).
 */
export const dashboardEnvSchema = z.object({
  DASHBOARD_TOKEN: documented(z.string().min(16).optional(), {
    description:
      'Machine bearer token for the dashboard API (caravel attach, caravel dead-letters, scripts); once set, reads need it or a sign-in; unset: only signed-in people act',
    secret: true,
  }),
  GITHUB_OAUTH_CLIENT_ID: documented(z.string().min(1).optional(), {
    description:
      'Client id of the GitHub App used for "Sign in with GitHub"; unset: no sign-in (and with no DASHBOARD_TOKEN either, the read API stays open)',
  }),
  GITHUB_OAUTH_CLIENT_SECRET: documented(z.string().min(1).optional(), {
    description: 'Client secret of that GitHub App (required with GITHUB_OAUTH_CLIENT_ID)',
    secret: true,
  }),
  GITHUB_OAUTH_URL: documented(z.url().default('https://github.com'), {
    description: 'Where GitHub serves /login/oauth/* (GitHub Enterprise: its web URL)',
  }),
  GITHUB_OAUTH_API_URL: documented(z.url().default('https://api.github.com'), {
    description: 'GitHub REST API the sign-in reads the person and their org memberships from',
  }),
  DASHBOARD_PUBLIC_URL: documented(origin.optional(), {
    description:
      "The dashboard's own origin as browsers see it (OAuth callback and same-origin checks); unset: taken from the request's Host",
    example: 'https://caravel.example.com',
  }),
  DASHBOARD_ALLOWED_ORIGINS: documented(originList(), {
    description:
      'Other origins allowed to call the API with cookies (credentialed CORS), comma-separated; * is refused',
    example: 'https://ops.example.com',
  }),
  DASHBOARD_ALLOWED_ORGS: documented(commaList(), {
    description:
      'GitHub organisations whose active members may sign in (their admins are dashboard admins), comma-separated; empty: only the logins in DASHBOARD_MEMBERS and DASHBOARD_ADMINS',
    example: 'acme',
  }),
  DASHBOARD_ORG_CHECK_SECONDS: documented(z.coerce.number().int().min(0).max(3600).default(300), {
    description:
      "How long GitHub's answer that someone let in through DASHBOARD_ALLOWED_ORGS still belongs to it is kept (asked as the GitHub App, which needs the organisation's Members: read); their session and API tokens stop working this long after they leave at most",
  }),
  DASHBOARD_ADMINS: documented(commaList(), {
    description:
      'GitHub logins with the admin role (enabled repositories, dead letters), comma-separated',
    example: 'octocat',
  }),
  DASHBOARD_MEMBERS: documented(commaList(), {
    description:
      'GitHub logins who may sign in as members besides the members of DASHBOARD_ALLOWED_ORGS, comma-separated',
    example: 'hubot',
  }),
  DASHBOARD_SESSION_KEYS: documented(z.string().min(1).optional(), {
    description:
      'Keyring sealing session cookies (AES-256-GCM), id:base64 of 32 bytes, current first; unset: a random key per process',
    secret: true,
  }),
  DASHBOARD_SESSION_HOURS: documented(z.coerce.number().int().min(1).max(720).default(12), {
    description: 'How long a sign-in lasts',
  }),
  // The App (or, in development, the token) asks GitHub who may see a thread's repository.
  GITHUB_APP_ID: githubAppSettingsSchema.shape.GITHUB_APP_ID,
  GITHUB_APP_PRIVATE_KEY: githubAppSettingsSchema.shape.GITHUB_APP_PRIVATE_KEY,
  GITHUB_API_URL: githubAppSettingsSchema.shape.GITHUB_API_URL,
  GITHUB_TOKEN: githubTokenSettingsSchema.shape.GITHUB_TOKEN,
  // Dispatch's key (it decides grants): the dashboard names these people beside paused runs.
  DISPATCH_BUDGET_ADMINS: documented(
    commaList({ pattern: /^[a-z]+:\S+$/, shape: '<source>:<id>' }),
    {
      description:
        "Comma list of <source>:<id> who may give a run paused at its budget more, besides the thread's owner",
      example: 'slack:U0123ABCD,github:octocat',
    },
  ),
});

type DashboardEnv = z.output<typeof dashboardEnvSchema>;

/** What the dashboard serves with, typed: who may act, the sign-in, trusted origins, sessions. */
export interface DashboardConfig {
  /** The machine bearer token for the API; unset: only signed-in people act. */
  machineToken?: string;
  signIn: {
    /** The GitHub App's OAuth pair; unset: no sign-in (reads then need the machine token, if set). */
    oauth?: { clientId: string; clientSecret: string };
    /** Where GitHub serves `/login/oauth/*`. */
    webUrl: string;
    /** The REST API the sign-in reads the person and their memberships from. */
    apiUrl: string;
    /** Organisations whose active members may sign in (their admins are admins). */
    allowedOrgs: readonly string[];
    /** How long GitHub's word that such a member still belongs to their organisation is kept. */
    orgCheckMs: number;
    /** GitHub logins with the admin role (they may sign in). */
    admins: readonly string[];
    /** GitHub logins who may sign in as members, whatever their organisations. */
    members: readonly string[];
  };
  origins: {
    /** The dashboard's own origin as browsers see it; unset: the request's scheme and Host. */
    publicUrl?: string;
    /** Other origins given credentialed CORS and trusted for cookie-authenticated mutations. */
    allowed: readonly string[];
  };
  /** Who may grant a run paused at its budget more, besides the thread's owner (`source:id`). */
  budgets: { admins: readonly string[] };
  /**
   * The GitHub Caravel acts on: its App (or development token) asks who may see a thread's
   * repository. Without either, members are not checked (auth/thread-access.policy.ts).
   */
  github: GitHubConfig;
  sessions: {
    /** The keyring sealing session cookies; unset: a random key per process. */
    keys?: string;
    /** How long a sign-in lasts. */
    hours: number;
  };
}

/**
 * Half an OAuth pair is a mistake, reported on the key that is missing (`required, but unset`).
 * So is a whole pair with nobody to admit: sign-in takes only the listed logins and the members
 * of the listed organisations (never any GitHub user), so with all three lists empty every
 * sign-in would be refused.
 */
export function checkDashboardSignIn(
  env: Pick<
    DashboardEnv,
    | 'GITHUB_OAUTH_CLIENT_ID'
    | 'GITHUB_OAUTH_CLIENT_SECRET'
    | 'DASHBOARD_ALLOWED_ORGS'
    | 'DASHBOARD_ADMINS'
    | 'DASHBOARD_MEMBERS'
  >,
  context: z.RefinementCtx,
): void {
  const { GITHUB_OAUTH_CLIENT_ID: id, GITHUB_OAUTH_CLIENT_SECRET: secret } = env;
  if (id && secret) {
    const admitted = [env.DASHBOARD_ALLOWED_ORGS, env.DASHBOARD_ADMINS, env.DASHBOARD_MEMBERS];
    if (admitted.every((list) => list.length === 0)) {
      context.addIssue({
        code: 'custom',
        path: ['GITHUB_OAUTH_CLIENT_ID'],
        message:
          'GitHub sign-in is configured but would admit nobody: say who may sign in with DASHBOARD_ALLOWED_ORGS, DASHBOARD_ADMINS or DASHBOARD_MEMBERS',
      });
    }
    return;
  }
  if (Boolean(id) === Boolean(secret)) return;
  const [missing, given] = id
    ? ['GITHUB_OAUTH_CLIENT_SECRET', 'GITHUB_OAUTH_CLIENT_ID']
    : ['GITHUB_OAUTH_CLIENT_ID', 'GITHUB_OAUTH_CLIENT_SECRET'];
  context.addIssue({
    code: 'custom',
    path: [missing],
    message: `GitHub sign-in needs both halves of the OAuth pair: set it with ${given}`,
  });
}

/** Maps the dashboard's parsed keys to its typed configuration. */
export function dashboardConfigOf(env: DashboardEnv): DashboardConfig {
  const { GITHUB_OAUTH_CLIENT_ID: clientId, GITHUB_OAUTH_CLIENT_SECRET: clientSecret } = env;
  return {
    ...(env.DASHBOARD_TOKEN ? { machineToken: env.DASHBOARD_TOKEN } : {}),
    signIn: {
      ...(clientId && clientSecret ? { oauth: { clientId, clientSecret } } : {}),
      webUrl: env.GITHUB_OAUTH_URL,
      apiUrl: env.GITHUB_OAUTH_API_URL,
      allowedOrgs: env.DASHBOARD_ALLOWED_ORGS,
      orgCheckMs: env.DASHBOARD_ORG_CHECK_SECONDS * 1000,
      admins: env.DASHBOARD_ADMINS,
      members: env.DASHBOARD_MEMBERS,
    },
    origins: {
      ...(env.DASHBOARD_PUBLIC_URL ? { publicUrl: env.DASHBOARD_PUBLIC_URL } : {}),
      allowed: env.DASHBOARD_ALLOWED_ORIGINS,
    },
    budgets: { admins: env.DISPATCH_BUDGET_ADMINS },
    github: githubConfigOf(env),
    sessions: {
      ...(env.DASHBOARD_SESSION_KEYS ? { keys: env.DASHBOARD_SESSION_KEYS } : {}),
      hours: env.DASHBOARD_SESSION_HOURS,
    },
  };
}

/**
 * The dashboard's own keys, parsed, checked and typed (tests, other hosts). A bad value throws
 * zod's error; a process loads its configuration with `loadConfig` for `CONFIG_INVALID`.
 */
export function dashboardConfigFrom(env: Record<string, string | undefined>): DashboardConfig {
  return dashboardConfigOf(dashboardEnvSchema.superRefine(checkDashboardSignIn).parse(env));
}

/** The distributed dashboard: the common service keys and its own, typed at parse time. */
export const dashboardConfigSchema = distributedServiceSchema(3007)
  .extend(dashboardEnvSchema.shape)
  .superRefine(checkDashboardSignIn)
  .transform((env) => ({ service: serviceConfigOf(env), ...dashboardConfigOf(env) }));

/** Injection token of the {@link DashboardConfig}. */
export const DASHBOARD_CONFIG = Symbol('caravel.dashboard-config');
