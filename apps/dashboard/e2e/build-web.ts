import { transformFile } from '@swc/core';
import { readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import type { FakeGithubAccount, FakeGithubOAuth } from './fake-github-oauth.js';

const WEB_SOURCES = fileURLToPath(new URL('../src/web/', import.meta.url));

/** Compiles the web app the way the workspace build does, into `out`. */
export async function buildWeb(out: string): Promise<void> {
  for (const name of await readdir(WEB_SOURCES)) {
    if (!name.endsWith('.ts')) continue;
    const { code } = await transformFile(join(WEB_SOURCES, name), {
      jsc: { target: 'es2022', parser: { syntax: 'typescript' } },
      module: { type: 'es6' },
    });
    await writeFile(join(out, name.replace(/\.ts$/, '.js')), code);
  }
}

/** A page of a fresh browser context signed in through the fake GitHub as `account`. */
export async function signedInAs(
  browser: Browser,
  dashboard: string,
  github: FakeGithubOAuth,
  account: FakeGithubAccount,
): Promise<Page> {
  const before = github.account;
  github.account = account;
  try {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${dashboard}/`);
    await page.getByRole('link', { name: 'Sign in with GitHub' }).click();
    await page.waitForSelector('table.threads');
    return page;
  } finally {
    github.account = before;
  }
}
