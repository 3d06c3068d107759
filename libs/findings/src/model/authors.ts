import type { Actor } from './finding.model.js';

/**
 * Review bots the ledger knows by login (lower case), and the name it records for each. Any
 * other bot account is recorded as `other`.
 */
export const KNOWN_REVIEW_BOTS: Readonly<Record<string, string>> = {
  copilot: 'copilot',
  'copilot-pull-request-reviewer[bot]': 'copilot',
  'coderabbitai[bot]': 'coderabbit',
  'cursor[bot]': 'bugbot',
  'greptile-apps[bot]': 'greptile',
  'chatgpt-codex-connector[bot]': 'codex',
  'claude[bot]': 'claude',
  'gemini-code-assist[bot]': 'gemini',
  'sourcery-ai[bot]': 'sourcery',
  'qodo-merge-pro[bot]': 'qodo',
};

/** What the SCM says about a comment's author. */
export interface AuthorInfo {
  login: string;
  /** GitHub's `user.type`: `User`, `Bot`, `Organization`, … */
  type?: string | null;
}

/**
 * Who wrote a comment: Caravel when the login is one of `caravelLogins` (the GitHub App's bot
 * login, case-insensitive), a bot when GitHub says so or the login is a known reviewer or ends in
 * `[bot]`, else a person.
 */
export function classifyAuthor(author: AuthorInfo, caravelLogins: readonly string[]): Actor {
  const login = author.login;
  const key = login.toLowerCase();
  if (caravelLogins.some((own) => own.toLowerCase() === key)) return { kind: 'caravel' };
  const known = KNOWN_REVIEW_BOTS[key];
  if (known) return { kind: 'bot', login, bot: known };
  if (author.type === 'Bot' || key.endsWith('[bot]')) return { kind: 'bot', login, bot: 'other' };
  return { kind: 'person', login };
}

/** A short name for messages: `Caravel`, `@ada`, `@coderabbitai[bot] (coderabbit)`. */
export function actorLabel(actor: Actor): string {
  switch (actor.kind) {
    case 'caravel':
      return 'Caravel';
    case 'person':
      return `@${actor.login}`;
    case 'bot':
      return actor.bot === 'other' ? `@${actor.login}` : `@${actor.login} (${actor.bot})`;
  }
}

/** Whether two actors are the same author. */
export function sameActor(a: Actor, b: Actor): boolean {
  if (a.kind === 'caravel' || b.kind === 'caravel') return a.kind === b.kind;
  return a.kind === b.kind && a.login.toLowerCase() === b.login.toLowerCase();
}
