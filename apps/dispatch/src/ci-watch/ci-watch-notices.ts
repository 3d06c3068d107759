import type { Actor } from '@caravel/contracts';

/** The author of the fix runs CI babysitting asks for (not a person: no 👀, no wakeup reset). */
export const CI_WATCH_ACTOR: Actor = {
  externalId: 'caravel:ci-watch',
  displayName: 'Caravel CI babysitting',
};

/** The one message a watched pull request gets once its checks held green. */
export function greenText(url: string, headSha: string): string {
  return `CI is green on ${url} at ${headSha.slice(0, 12)}, and has stayed green: nothing left to fix.`;
}

/** The one message at the loop cap. */
export function limitText(url: string, fixRuns: number): string {
  return `Auto-fix limit reached on ${url}: ${fixRuns} fix runs and CI still fails. Over to you; \`@caravel autofix on\` or asking me to watch it again starts over.`;
}

/** A cancelled or stale check: not the agent's to decide. */
export function triageText(url: string, headSha: string): string {
  return `A check on ${url} at ${headSha.slice(0, 12)} was cancelled or went stale: it needs its owner's look, so I stopped watching CI there.`;
}
