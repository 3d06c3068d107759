import { AppError } from '@caravel/errors';
import type { Sandbox } from '../sandbox.types.js';
import { runGitScript, shellQuote, type GitLocation } from './git-script.js';
import { WORKTREE_TREE_SCRIPT } from './worktree-tree.js';

/** Where turn checkpoints live; never pushed (no refspec names them). */
export const TURN_REF_PREFIX = 'refs/caravel/turns/';

/** The `turnDiff` target meaning "the worktree now"; reserved, so no message may use it as an id. */
export const WORKTREE = 'worktree';

const MESSAGE_ID = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}$/;
const CHECKPOINT_IDENTITY =
  'GIT_AUTHOR_NAME=caravel GIT_AUTHOR_EMAIL=caravel@localhost ' +
  'GIT_COMMITTER_NAME=caravel GIT_COMMITTER_EMAIL=caravel@localhost';

/** The ref a message's checkpoint is stored under; BAD_REQUEST for ids git would not accept. */
export function turnRef(messageId: string): string {
  if (
    !MESSAGE_ID.test(messageId) ||
    messageId.includes('..') ||
    messageId.endsWith('.lock') ||
    messageId === WORKTREE
  ) {
    throw new AppError('BAD_REQUEST', `invalid message id for a turn checkpoint: ${messageId}`, {
      details: { messageId },
    });
  }
  return `${TURN_REF_PREFIX}${messageId}`;
}

/** A stored checkpoint. */
export interface TurnCheckpoint {
  readonly messageId: string;
  readonly ref: string;
  readonly commit: string;
  /** False when the turn already had a checkpoint (the first one wins, e.g. on redelivery). */
  readonly created: boolean;
}

/**
 * Records the worktree at the start of a turn as a commit (parent: HEAD, when there is one) under
 * `refs/caravel/turns/<messageId>`, without touching the index, HEAD or the working tree. A turn
 * that already has a checkpoint keeps it.
 */
export async function snapshotTurn(
  sandbox: Sandbox,
  messageId: string,
  location: GitLocation = {},
): Promise<TurnCheckpoint> {
  const ref = turnRef(messageId);
  const script = `existing=$(git rev-parse -q --verify ${shellQuote(`${ref}^{commit}`)} || true)
if [ -n "$existing" ]; then echo "old $existing"; exit 0; fi
${WORKTREE_TREE_SCRIPT}
commit=$(${CHECKPOINT_IDENTITY} git commit-tree "$tree" \${head:+-p "$head"} -m ${shellQuote(`caravel turn ${messageId}`)})
git update-ref ${shellQuote(ref)} "$commit" ""
echo "new $commit"`;
  const output = await runGitScript(sandbox, location, script, `snapshot of turn ${messageId}`);
  const match = /^(old|new) ([0-9a-f]{40,64})$/m.exec(output);
  if (!match?.[2]) {
    throw new AppError('INTERNAL', `unexpected output from a turn snapshot: ${output.trim()}`);
  }
  return { messageId, ref, commit: match[2], created: match[1] === 'new' };
}
