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
  /** Whether a login collaborates on the repository (only their reactions count). */
  isCollaborator(login: string): Promise<boolean>;
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

/** Whether a login collaborates, asked once per login per run; unknown counts as no. */
function collaboratorCheck(sources: ReactionSources): (login: string) => Promise<boolean> {
  const known = new Map<string, Promise<boolean>>();
  return (login) => {
    const key = login.toLowerCase();
    let answer = known.get(key);
    if (!answer) {
      answer = sources.reader.isCollaborator(login).catch((error: unknown) => {
        sources.warn(`whether ${login} collaborates not read (${String(error)}): not counted`);
        return false;
      });
      known.set(key, answer);
    }
    return answer;
  };
}

/** The tally with only the collaborators' reactions; null when none is left. */
async function collaboratorsOnly(
  tally: ReactionTally,
  collaborates: (login: string) => Promise<boolean>,
): Promise<ReactionTally | null> {
  const keep = async (logins: string[]) =>
    (await Promise.all(logins.map(async (l) => ((await collaborates(l)) ? [l] : [])))).flat();
  const kept = { up: await keep(tally.up), down: await keep(tally.down) };
  return kept.up.length + kept.down.length > 0 ? kept : null;
}

/**
 * The ledger's outcomes with the reactions on Caravel's published findings: a finding people
 * reacted to since `since` carries its tally, and one that had no other outcome becomes one.
 * Only the repository's collaborators count: anyone can react on a public repository, and
 * strangers' 👎 must not teach the reviewer to stop flagging what the team wants flagged. A
 * comment whose reactions cannot be read is skipped with a warning (the rest still count).
 */
export async function withReactions(
  outcomes: readonly FindingOutcomeRow[],
  surfaced: readonly SurfacedFinding[],
  sources: ReactionSources,
): Promise<WeighedOutcome[]> {
  const weighed = new Map<string, WeighedOutcome>(outcomes.map((o) => [o.id, { ...o }]));
  const collaborates = collaboratorCheck(sources);
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
    const tally = tallyReactions(listed, sources.since, sources.botLogin);
    const reactions = tally && (await collaboratorsOnly(tally, collaborates));
    if (!reactions) continue;
    const { commentId: _comment, ...row } = finding;
    weighed.set(finding.id, { ...(weighed.get(finding.id) ?? row), reactions });
  }
  return [...weighed.values()];
}
