import type { FindingOutcomeRow } from '@caravel/db';

/** A reaction on a comment, as the SCM lists it. */
export interface CommentReaction {
  content: string;
  author: string;
  bot: boolean;
  at: string;
}

/** Reads the reactions on Caravel's inline review comments (GitHub's reactions API). */
export interface ReviewCommentReactions {
  listReviewCommentReactions(commentId: number): Promise<CommentReaction[]>;
}

/** The people who gave a finding's comment 👍 (`up`) and 👎 (`down`), by login. */
export interface ReactionTally {
  up: string[];
  down: string[];
}

/** A finding's outcome, with the reactions on its inline comment when people reacted. */
export type WeighedOutcome = FindingOutcomeRow & { reactions?: ReactionTally };

/** A finding published as an inline comment (`commentId`: the comment's id on GitHub). */
export type SurfacedFinding = FindingOutcomeRow & { commentId: string };

/**
 * People's 👍/👎 on one comment made after `since`, each person counted once per reaction: bots
 * and Caravel's own login are left out (a reaction is a person's verdict, not an acknowledgement
 * by a tool). Null when none is left.
 */
export function tallyReactions(
  reactions: readonly CommentReaction[],
  since: Date,
  botLogin: string,
): ReactionTally | null {
  const own = botLogin.toLowerCase();
  const people = reactions.filter(
    (r) => !r.bot && r.author.toLowerCase() !== own && Date.parse(r.at) > since.getTime(),
  );
  const who = (content: string) =>
    [...new Set(people.filter((r) => r.content === content).map((r) => r.author))].sort();
  const tally = { up: who('+1'), down: who('-1') };
  return tally.up.length + tally.down.length > 0 ? tally : null;
}

/** The reactions a run reads, and where it says what it could not read. */
export interface ReactionSources {
  reader: ReviewCommentReactions;
  since: Date;
  botLogin: string;
  warn(message: string): void;
}

/**
 * The ledger's outcomes with the reactions on Caravel's published findings: a finding people
 * reacted to since `since` carries its tally, and one that had no other outcome becomes one. A
 * comment whose reactions cannot be read is skipped with a warning (the rest still count).
 */
export async function withReactions(
  outcomes: readonly FindingOutcomeRow[],
  surfaced: readonly SurfacedFinding[],
  sources: ReactionSources,
): Promise<WeighedOutcome[]> {
  const weighed = new Map<string, WeighedOutcome>(outcomes.map((o) => [o.id, { ...o }]));
  for (const finding of surfaced) {
    const commentId = Number(finding.commentId);
    if (!Number.isSafeInteger(commentId) || commentId <= 0) continue;
    let listed: CommentReaction[];
    try {
      listed = await sources.reader.listReviewCommentReactions(commentId);
    } catch (error) {
      sources.warn(`reactions on finding ${finding.id} not read (${String(error)})`);
      continue;
    }
    const reactions = tallyReactions(listed, sources.since, sources.botLogin);
    if (!reactions) continue;
    const { commentId: _comment, ...row } = finding;
    weighed.set(finding.id, { ...(weighed.get(finding.id) ?? row), reactions });
  }
  return [...weighed.values()];
}
