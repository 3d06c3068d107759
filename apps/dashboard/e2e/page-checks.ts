import { expect } from '@jest/globals';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Page } from 'playwright-core';

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's verdict, as the page hands it back: each violated rule and a few of its nodes. */
const RUN_AXE = `axe.run(document, { resultTypes: ['violations'] }).then((result) =>
  result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))`;

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

/** What the page's Content-Security-Policy refused, and the page's uncaught errors. */
export function watchPage(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return problems;
}

/**
 * Checks the page as it is now with axe-core (0 serious or critical violations), and saves its
 * screenshot as `<name>.png` in `folder`. axe is evaluated through the DevTools protocol: the
 * page's CSP admits no injected script tag, and stays on.
 */
export async function checkPage(page: Page, folder: string, name: string): Promise<void> {
  await page.screenshot({ path: join(folder, `${name}.png`), fullPage: true });
  if (!(await page.evaluate('typeof axe === "object"'))) await page.evaluate(AXE);
  const violations = await page.evaluate<Violation[]>(RUN_AXE);
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect({ page: name, serious }).toEqual({ page: name, serious: [] });
}
