import type { FindingOutcomeRow } from '@caravel/db';
import { defineTool, wrapUntrusted, type CaravelTool } from '@caravel/tools';
import { z } from 'zod';
import type { ReviewStyleRunContext } from '../review-style.context.js';

interface StoredInteraction {
  kind?: string;
  author?: { login?: string };
  body?: string;
}

const repliesOf = (outcome: FindingOutcomeRow): StoredInteraction[] =>
  Array.isArray(outcome.interactions)
    ? (outcome.interactions as StoredInteraction[]).filter((i) => i.kind === 'human_reply')
    : [];

const resolutionOf = (outcome: FindingOutcomeRow): string => {
  const kind = (outcome.resolution as { kind?: string } | null)?.kind;
  return kind === 'fixed_by_commit' ? 'fixed by a commit' : (kind ?? 'still open');
};

function render(outcome: FindingOutcomeRow): string {
  const replies = repliesOf(outcome).map((reply) =>
    wrapUntrusted(reply.body ?? '', { author: reply.author?.login ?? 'someone' }),
  );
  return [
    `${outcome.id} on #${outcome.number} [${outcome.severity} ${outcome.category}] ${JSON.stringify(outcome.title)}: ${resolutionOf(outcome)}`,
    ...replies,
  ].join('\n');
}

/**
 * `read_finding_outcomes`: what happened to Caravel's findings on the repository since the latest
 * saved style (fixed, dismissed, replied to); people's replies wrapped as untrusted content.
 */
export function readFindingOutcomesTool(
  context: ReviewStyleRunContext,
): CaravelTool<FindingOutcomeRow[]> {
  return defineTool({
    name: 'read_finding_outcomes',
    description:
      "What happened to Caravel's review findings on this repository since the current style was saved.",
    effect: 'read',
    input: z.object({}),
    run: () => Promise.resolve(context.outcomes),
    observe: (outcomes) =>
      outcomes.length ? outcomes.map(render).join('\n\n') : 'No outcomes since the last version.',
  });
}
