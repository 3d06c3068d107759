import { describe, expect, it } from '@jest/globals';
import { findShellPullRequestWrite, findShellReviewVerdict } from './github-shell-policy.js';

const REVIEWS = 'repos/acme/app/pulls/7/reviews';
const URL = `https://api.github.com/${REVIEWS}`;

/** Shell spellings of a review verdict: every one must be refused. */
const VERDICTS: string[] = [
  'gh pr review 7 --approve',
  'gh pr review --approve 7',
  'gh pr review 7 -a',
  'gh pr review 7 --request-changes -b "fix it"',
  'gh pr review 7 -r -b "fix it"',
  'gh pr review 7 -ab "looks good"',
  'gh pr review 7 -rb "needs work"',
  'gh pr review 7 -b "ok" -a',
  'gh pr review 7 --body=ok --approve',
  'gh pr review 7 --approve=true',
  "gh pr review 7 '--approve'",
  'gh pr review 7 "--request-changes" --body x',
  'gh pr review 7 --app\\\nrove',
  'gh pr review 7 \\\n  --approve',
  "gh pr review 7 $'--appro\\x76e'",
  'g"h" p\'r\' review 7 -a',
  '/usr/bin/gh pr review 7 -a',
  'GH_TOKEN=x gh pr review 7 --approve',
  'env GH_TOKEN=x gh pr review 7 -r -b no',
  'cd repo && gh pr review 7 --approve',
  'git diff; gh pr review 7 -a || true',
  'echo ok | gh pr review 7 --approve --body-file -',
  'bash -c "gh pr review 7 --approve"',
  "sh -lc 'cd x && gh pr review 7 -r -b nope'",
  'eval "gh pr review 7 --approve"',
  'echo $(gh pr review 7 -a)',
  'x=`gh pr review 7 --approve`',
  'gh pr review -R acme/app 7 --approve',
  `gh api ${REVIEWS} -f event=APPROVE`,
  `gh api ${REVIEWS} -f 'event=REQUEST_CHANGES' -f body='fix'`,
  `gh api -X POST ${REVIEWS} --raw-field event=APPROVE`,
  `gh api ${REVIEWS} -F event=APPROVE`,
  `gh api ${REVIEWS} --field=event=APPROVE`,
  `gh api ${REVIEWS} -fevent=APPROVE`,
  `gh api --method POST /${REVIEWS} -f "event"="APPROVE"`,
  `gh api /${REVIEWS}/99/events -f event=APPROVE`,
  `gh api ${REVIEWS} --input - <<'EOF'\n{"event": "APPROVE", "body": "lgtm"}\nEOF`,
  `gh api ${REVIEWS} --input review.json`,
  `gh api graphql -f query='mutation { addPullRequestReview(input: {pullRequestId: "X", event: APPROVE}) { clientMutationId } }'`,
  `curl -X POST ${URL} -d '{"event":"APPROVE"}'`,
  `curl -sS -H 'Authorization: token x' -d '{"body":"ok","event":"REQUEST_CHANGES"}' ${URL}`,
  `curl ${URL} --data-raw "{\\"event\\": \\"APPROVE\\"}"`,
  `curl ${URL} --json '{ "event" : "APPROVE" }'`,
  `curl -sd '{"event":"APPROVE"}' ${URL}`,
  `curl -d event=APPROVE ${URL}`,
  `curl ${URL} -d @- <<EOF\n{"event":"REQUEST_CHANGES"}\nEOF`,
  `curl ${URL} --data-binary @- <<< '{"event":"APPROVE"}'`,
  `curl ${URL} -d @review.json`,
  `curl \\\n  -X POST \\\n  "${URL}" \\\n  -d '{"event":"APPROVE"}'`,
];

/** Comment reviews and reads: every one must pass. */
const ALLOWED: string[] = [
  'gh pr review 7 --comment -b "a note"',
  'gh pr review 7 -c -b "a note"',
  'gh pr review 7 -cb "-a is a flag I like"',
  'gh pr review 7 -b "--approve" --comment',
  'gh pr review 7 --approve=false --comment -b x',
  'gh pr view 7',
  'gh pr diff 7',
  'gh pr checks 7',
  `gh api ${REVIEWS}`,
  `gh api ${REVIEWS} --paginate`,
  `gh api ${REVIEWS} -f event=COMMENT -f body='see inline'`,
  `gh api ${REVIEWS} -f body='approve later' -f event=COMMENT`,
  `gh api -X GET ${REVIEWS} -f per_page=100`,
  `gh api repos/acme/app/pulls/7/comments`,
  `curl ${URL}`,
  `curl -s -H 'Accept: application/vnd.github+json' ${URL}`,
  `curl -X POST ${URL} -d '{"event":"COMMENT","body":"please APPROVE this later"}'`,
  'echo "gh pr review 7 --approve"',
  "git commit -m 'do not gh pr review --approve'",
  'grep -rn "event=APPROVE" docs/',
  '# gh pr review 7 --approve',
  'cat <<EOF\ngh pr review 7 --approve\nEOF',
];

describe('findShellReviewVerdict', () => {
  it('has a table of at least 30 verdict spellings', () => {
    expect(VERDICTS.length).toBeGreaterThanOrEqual(30);
  });

  it.each(VERDICTS)('refuses %j', (command) => {
    expect(findShellReviewVerdict(command)).not.toBeNull();
  });

  it.each(ALLOWED)('lets %j through', (command) => {
    expect(findShellReviewVerdict(command)).toBeNull();
  });

  it('says what it refused', () => {
    expect(findShellReviewVerdict('gh pr review 7 -ab ok')?.what).toBe('gh pr review -a');
    expect(findShellReviewVerdict(`gh api ${REVIEWS} -f event=APPROVE`)?.what).toBe(
      'gh posting event=APPROVE to a reviews endpoint',
    );
  });
});

const PR_WRITES: string[] = [
  'gh pr create --title x --body y',
  'gh pr create -d -t x -b y',
  'gh pr new --fill',
  'gh pr edit 7 --title better',
  'gh pr ready 7',
  'cd app && GH_TOKEN=x gh pr create --fill',
  'bash -c "gh pr create --fill"',
  'hub pull-request -m x',
  'gh api repos/acme/app/pulls -f title=x -f head=b -f base=main',
  'gh api -X PATCH repos/acme/app/pulls/7 -f draft=false',
  `curl -X POST https://api.github.com/repos/acme/app/pulls -d '{"title":"x"}'`,
  `curl -d '{"title":"x","head":"b","base":"main"}' https://api.github.com/repos/acme/app/pulls`,
  `gh api graphql -f query='mutation { markPullRequestReadyForReview(input:{pullRequestId:"X"}) { clientMutationId } }'`,
];

const PR_READS: string[] = [
  'gh pr view 7',
  'gh pr list --head caravel/abc',
  'gh api repos/acme/app/pulls',
  'gh api repos/acme/app/pulls/7',
  'curl https://api.github.com/repos/acme/app/pulls?state=open',
  'gh pr review 7 --comment -b x',
  'git push origin HEAD',
  "echo 'gh pr create'",
];

describe('findShellPullRequestWrite', () => {
  it.each(PR_WRITES)('refuses %j', (command) => {
    expect(findShellPullRequestWrite(command)).not.toBeNull();
  });

  it.each(PR_READS)('lets %j through', (command) => {
    expect(findShellPullRequestWrite(command)).toBeNull();
  });
});
