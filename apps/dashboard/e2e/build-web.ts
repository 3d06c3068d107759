import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { Browser, Page } from 'playwright-core';
import type { FakeGithubAccount, FakeGithubOAuth } from '@caravel/testing';
import { asAccount } from './dashboard-host.js';

const BUILD_WEB = fileURLToPath(new URL('../../../tools/scripts/build-web.mjs', import.meta.url));

/**
 * The web app built from today's sources, the way the workspace build builds it (Vite, in its own
 * process; reused when its inputs are unchanged, rebuilt when they changed): its folder.
 */
export async function buildWeb(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [BUILD_WEB]);
  return stdout.trim();
}

/** A page of a fresh browser context signed in through the fake GitHub as `account`. */
export async function signedInAs(
  browser: Browser,
  dashboard: string,
  github: FakeGithubOAuth,
  account: FakeGithubAccount,
): Promise<Page> {
  return asAccount(github, account, async () => {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${dashboard}/`);
    await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
    // The threads page: the list, or none the person may see.
    await page.locator('table.threads').or(page.getByText('No thread matches.')).waitFor();
    return page;
  });
}
