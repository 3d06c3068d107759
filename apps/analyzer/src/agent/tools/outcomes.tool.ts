import { defineTool, wrapUntrusted, type CaravelTool } from '@caravel/tools';
import { z } from 'zod';
import type { WeighedOutcome } from '../../continual/finding-reactions.js';
import { weighOutcomes, type CategoryWeight } from '../../continual/outcome-weights.js';
import type { ReviewStyleRunContext } from '../review-style.context.js';

interface StoredInteraction {
  kind?: string;
  author?: { login?: string };
  body?: string;
}

const repliesOf = (outcome: WeighedOutcome): StoredInteraction[] =>
  Array.isArray(outcome.interactions)
    ? (outcome.interactions as StoredInteraction[]).filter((i) => i.kind === 'human_reply')
    : [];

const resolutionOf = (outcome: WeighedOutcome): string => {
  const kind = (outcome.resolution as { kind?: string } | null)?.kind;
  return kind === 'fixed_by_commit' ? 'fixed by a commit' : (kind ?? 'still open');
};

const reactionsOf = (outcome: WeighedOutcome): string => {
  const { up = [], down = [] } = outcome.reactions ?? {};
  const part = (emoji: string, who: string[]) => (who.length ? [`${emoji} ${who.length}`] : []);
  const parts = [...part('👍', up), ...part('👎', down)];
  return parts.length ? `; reactions ${parts.join(', ')}` : '';
};

function render(outcome: WeighedOutcome): string {
  const replies = repliesOf(outcome).map((reply) =>
    wrapUntrusted(reply.body ?? '', { author: reply.author?.login ?? 'someone' }),
  );
  return [
    `${outcome.id} on #${outcome.number} [${outcome.severity} ${outcome.category}] ${JSON.stringify(outcome.title)}: ${resolutionOf(outcome)}${reactionsOf(outcome)}`,
    ...replies,
  ].join('\n');
}

const weightLine = (w: CategoryWeight): string =>
  `- ${w.verdict} ${JSON.stringify(w.category)}: ${w.confirmed} confirmed (fixed, 👍), ${w.rejected} rejected (dismissed, 👎)`;

/**
 * `read_finding_outcomes`: what happened to Caravel's findings on the repository since the latest
 * saved style (fixed, dismissed, replied to, 👍/👎 on their comments), led by the promote/demote
 * verdict per category; people's replies wrapped as untrusted content.
 */
export function readFindingOutcomesTool(
  context: ReviewStyleRunContext,
): CaravelTool<WeighedOutcome[]> {
  return defineTool({
    name: 'read_finding_outcomes',
    description:
      "What happened to Caravel's review findings on this repository since the current style was saved.",
    effect: 'read',
    input: z.object({}),
    run: () => Promise.resolve(context.outcomes),
    observe: (outcomes) => {
      if (outcomes.length === 0) return 'No outcomes since the last version.';
      const weights = weighOutcomes(outcomes).map(weightLine).join('\n');
      return `By category:\n${weights}\n\n${outcomes.map(render).join('\n\n')}`;
    },
  });
}
