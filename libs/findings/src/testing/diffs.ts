import { changedLineSet, type ChangedLineSet } from '../diff/changed-lines.js';

/**
 * A pull request's diff for tests: src/app.ts has one hunk (RIGHT 8-20, LEFT 8-18; lines 10-12
 * added or changed), src/old.ts was deleted, docs/guide.md added (RIGHT 1-3).
 */
export const PR_DIFF = [
  'diff --git a/src/app.ts b/src/app.ts',
  '--- a/src/app.ts',
  '+++ b/src/app.ts',
  '@@ -8,11 +8,13 @@ export function main() {',
  ' c8',
  ' c9',
  '-old10',
  '+new10',
  '+new11',
  '+new12',
  ' c13',
  ' c14',
  ' c15',
  ' c16',
  ' c17',
  ' c18',
  ' c19',
  ' c20',
  'diff --git a/src/old.ts b/src/old.ts',
  'deleted file mode 100644',
  '--- a/src/old.ts',
  '+++ /dev/null',
  '@@ -1,2 +0,0 @@',
  '-a',
  '-b',
  'diff --git a/docs/guide.md b/docs/guide.md',
  'new file mode 100644',
  '--- /dev/null',
  '+++ b/docs/guide.md',
  '@@ -0,0 +1,3 @@',
  '+# Guide',
  '+',
  '+Text',
  '',
].join('\n');

export const PR_LINES: ChangedLineSet = changedLineSet(PR_DIFF);
