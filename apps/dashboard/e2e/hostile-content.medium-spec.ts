import { FakeGithubOAuth } from '@caravel/testing';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type Page } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS, missingBrowser } from './browser-gate.js';
import { buildWeb, signedInAs } from './build-web.js';
import { asAccount, startDashboard, type DashboardHost } from './dashboard-host.js';
import { watchPage } from './page-checks.js';

/** Each sets `window.pwned` if it ever runs; the page must show it as text. */
const IMG = '<img src=x onerror="window.pwned=1">';
const SCRIPT = '<script>window.pwned=2</script>';
const SVG = '<svg onload="window.pwned=3"></svg>';
const JS_URL = 'javascript:window.pwned=4';
const ANSI = '\u001b[31mred\u001b[0m \u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007';
/** A file name and a line no diff view may take for markup. */
const HOSTILE_DIFF = [
  `diff --git a/${IMG}.ts b/${IMG}.ts`,
  `--- a/${IMG}.ts`,
  `+++ b/${IMG}.ts`,
  '@@ -1 +1 @@',
  `-const a = '${SVG}';`,
  `+const a = '${SCRIPT}';`,
].join('\n');

/** Elements hostile text could make (Mantine's own icons aside). */
const MADE_FROM_TEXT =
  'main img, main svg:not([class*="mantine-"]), main script, main iframe, main b';

const missing = missingBrowser({ bubblewrap: false });

/**
 * What an agent, a model or a pull request writes reaches the page as text: markup, `javascript:`
 * links, terminal escapes and very long output are shown, never run or followed.
 */
(missing ? describe.skip : describe)('hostile thread content in Chromium', () => {
  const oauth = new FakeGithubOAuth();
  let dash: DashboardHost;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  const threadId = randomUUID();

  beforeAll(async () => {
    const webRoot = await buildWeb();
    await oauth.listen();
    dash = await startDashboard(webRoot, oauth);
    await dash.thread(threadId, `${IMG} ${SCRIPT} fix`, 'github:octocat');
    await dash.event(threadId, {
      step: 0,
      actor: 'agent',
      thought: `See ${JS_URL} and https://ok.example/a"><img src=x onerror=window.pwned=5> ${SVG}`,
      toolCalls: [{ name: `<b>edit</b>`, args: { path: SVG } }],
      observation: `${SCRIPT}; opened draft pull request #7: ${JS_URL}`,
      results: [{ name: 'commit_and_open_pr', status: 'success', content: `opened ${JS_URL}` }],
    });
    await dash.event(threadId, { piece: 0, text: `${ANSI} ${IMG}` }, 'evt.run.output');
    await dash.event(
      threadId,
      { outcome: 'completed', summary: `${SCRIPT} [x](${JS_URL})`, submission: HOSTILE_DIFF },
      'evt.run.finished',
    );
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await signedInAs(browser, dash.host.url, oauth, { login: 'octocat', id: 583231 });
    problems = watchPage(page);
  });

  afterAll(async () => {
    await browser?.close();
    await dash?.close();
    await oauth.close();
  });

  /** What the page's markup holds that hostile text could have made. */
  async function madeFromText(): Promise<{ pwned: unknown; elements: string[]; hrefs: string[] }> {
    const hrefs = await page.evaluate<string[]>(
      `[...document.querySelectorAll('a[href]')].map((a) => a.getAttribute('href'))`,
    );
    return {
      pwned: await page.evaluate('window.pwned ?? null'),
      elements: await page.evaluate<string[]>(
        `[...document.querySelectorAll(${JSON.stringify(MADE_FROM_TEXT)})].map((e) => e.outerHTML.slice(0, 200))`,
      ),
      hrefs: hrefs.filter((href) => !/^(#|\/|https?:\/\/)/.test(href)),
    };
  }

  it('shows markup, javascript: links and terminal escapes in a thread as text, running none', async () => {
    await page.goto(`${dash.host.url}/#/threads`);
    await page.getByRole('link', { name: `${IMG} ${SCRIPT} fix` }).waitFor();
    await page.goto(`${dash.host.url}/#/threads/${threadId}`);
    await page.locator('li.event.evt-run-finished').waitFor();
    const events = page.getByRole('list', { name: 'run events' });
    expect(await events.locator('p.summary').textContent()).toBe(`${SCRIPT} [x](${JS_URL})`);
    expect(await events.getByText('<b>edit</b>').count()).toBe(1);
    expect(await page.locator('pre.diff').textContent()).toContain(`+const a = '${SCRIPT}';`);
    expect(await page.locator('pre.output').textContent()).toContain(IMG);
    // The https link is cut where the markup begins; the javascript: one is no link.
    expect(await events.locator('a').getAttribute('href')).toBe('https://ok.example/a');
    expect(await madeFromText()).toEqual({ pwned: null, elements: [], hrefs: [] });
    expect(problems.splice(0)).toEqual([]);
  });

  it('shows a huge diff without highlighting all of it: the page stays usable and loses no line', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `+const v${i} = "${'x'.repeat(40)}";`);
    const huge = randomUUID();
    await dash.thread(huge, 'a generated file', 'github:octocat');
    const header = [
      'diff --git a/big.ts b/big.ts',
      '--- /dev/null',
      '+++ b/big.ts',
      '@@ -0,0 +1 @@',
    ];
    const submission = [...header, ...lines].join('\n');
    await dash.event(
      huge,
      { outcome: 'completed', summary: 'big', submission },
      'evt.run.finished',
    );
    await page.goto(`${dash.host.url}/#/threads/${huge}`);
    await page.locator('li.event.evt-run-finished').waitFor();
    const diff = page.locator('pre.diff');
    expect(await diff.locator('.diff-line').count()).toBeLessThanOrEqual(2_000);
    expect(await diff.textContent()).toContain(`const v19999 = "${'x'.repeat(40)}";`);
    await page.getByText(/^The last 18,004 lines of this diff are shown unhighlighted/).waitFor();
  });

  it('shows on the sign-in page no words a link brings, only a refusal the dashboard made', async () => {
    const query = new URLSearchParams({ error: 'FORBIDDEN', message: `${IMG} call +1 555 0100` });
    await page.goto(`${dash.host.url}/#/sign-in?${query.toString()}`);
    await page.getByRole('link', { name: 'Sign in with GitHub' }).waitFor();
    expect(await page.getByText('call +1 555 0100').count()).toBe(0);
    const eve = await (await browser.newContext()).newPage();
    await asAccount(oauth, { login: `eve`, id: 66 }, async () => {
      await eve.goto(`${dash.host.url}/auth/github`);
      await eve
        .getByRole('alert')
        .getByText(/^FORBIDDEN: eve may not sign in/)
        .waitFor();
    });
    await eve.context().close();
    expect(await madeFromText()).toEqual({ pwned: null, elements: [], hrefs: [] });
  });
});
