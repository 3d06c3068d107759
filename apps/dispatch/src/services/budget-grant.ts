import type { BudgetPauseStanding } from '@caravel/db';

/**
 * How much more a reply grants a run paused at its budget ("continue with $5 more"), read from
 * the reply's words: one amount, with a currency (`$5`, `5$`, `5 usd`, `usd 5`, `5 dollars`) or
 * bare (`5.50`, `5,50`), in words that ask to go on. A bare number counts only among filler words
 * ("continue with 5.50 more"), so "continue with 2 more tests" grants nothing; a currency amount
 * also counts beside other words when they ask to continue ("sure, continue with $5 more but
 * focus on the parser"). Mentions are ignored. Null when the reply grants nothing.
 */
export function parseBudgetGrant(text: string): number | null {
  const words = text
    .replace(/<@[A-Z0-9]+>/gi, ' ')
    .replace(/(^|\s)@[\w-]+/g, ' ')
    .toLowerCase();
  const amounts = [...words.matchAll(AMOUNT)];
  const [only] = amounts;
  if (amounts.length !== 1 || only === undefined) return null;
  const usd = amountOf(only);
  if (usd === null) return null;
  const rest = (words.slice(0, only.index) + ' ' + words.slice(only.index + only[0].length))
    .split(/[^a-z]+/)
    .filter(Boolean);
  const onlyFiller = rest.every((word) => FILLER.has(word));
  const withCurrency = only.groups?.['bare'] === undefined;
  return onlyFiller || (withCurrency && rest.some((word) => GO_ON.has(word))) ? usd : null;
}

const NUMBER = String.raw`\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\d+(?:[.,]\d{1,2})?`;
const END = String.raw`(?![\d.,]*\d)`;

/** One amount: `$5`, `5$`, `5 usd`, `usd 5`, `5 dollars`, or a bare `5.50`. */
const AMOUNT = new RegExp(
  [
    String.raw`\$\s*(?<dollar>${NUMBER})${END}`,
    String.raw`(?<suffixed>${NUMBER})${END}\s*(?:\$|usd\b|dollars?\b|bucks\b)`,
    String.raw`\busd\s*(?<usd>${NUMBER})${END}`,
    String.raw`(?<![\w.,])(?<bare>${NUMBER})${END}`,
  ].join('|'),
  'g',
);

function amountOf(match: RegExpMatchArray): number | null {
  const { dollar, suffixed, usd, bare } = match.groups ?? {};
  const raw = dollar ?? suffixed ?? usd ?? bare ?? '';
  // `1,000.50` groups thousands; `5,50` is a decimal comma.
  const normal = /^\d{1,3}(,\d{3})+/.test(raw) ? raw.replace(/,/g, '') : raw.replace(',', '.');
  const value = Number(normal);
  return Number.isFinite(value) && value > 0 ? value : null;
}

/** Words that ask to go on. */
const GO_ON = new Set([
  'continue',
  'resume',
  'proceed',
  'go',
  'keep',
  'add',
  'another',
  'extra',
  'additional',
  'raise',
  'increase',
  'top',
  'approve',
  'approved',
  'allow',
  'grant',
]);

/** Words that say nothing but "go on" around an amount. */
const FILLER = new Set([
  ...GO_ON,
  'on',
  'ahead',
  'going',
  'with',
  'more',
  'up',
  'please',
  'pls',
  'ok',
  'okay',
  'yes',
  'sure',
  'and',
  'a',
  'an',
  'the',
  'of',
  'for',
  'by',
  'to',
  'it',
  'i',
  'you',
  'can',
  'may',
  'spend',
  'budget',
  'usd',
  'dollars',
  'dollar',
  'bucks',
]);

/** Why a grant came too late, by where its pause stands. */
const TOO_LATE: Record<Exclude<BudgetPauseStanding, 'open'>, string> = {
  ended: 'that run has ended since',
  stopped: 'that run was stopped',
  superseded: 'another run has worked on this thread since',
};

/** What a grant for a pause that is no longer open is told: nothing resumes. */
export function stalePauseText(
  standing: Exclude<BudgetPauseStanding, 'open'>,
  budgetUsd: number,
): string {
  return (
    `There is no paused run to continue here: the run that paused at its ` +
    `$${budgetUsd.toFixed(2)} budget can't be resumed (${TOO_LATE[standing]}). Nothing was ` +
    `resumed; ask again to start a new run.`
  );
}

/** What a person who may not grant more is told. */
export function budgetGrantRefusedText(who: string): string {
  return (
    `Only the person who started this thread or an admin can give this run more budget ` +
    `(${who} can't). Nothing was changed.`
  );
}
