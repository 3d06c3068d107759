import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { reviewEvalResultSchema, type ReviewEvalResult } from '@caravel/evals';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { runCli } from '../cli.js';
import { recordingIo } from '../../testing/recording-io.js';

const io = recordingIo;

const lines = (...text: string[]) => `${text.join('\n')}\n`;

const CART = lines(
  'export function total(items) {',
  '  let sum = 0;',
  '  for (const item of items) sum += item.price * item.quantity;',
  '  return sum;',
  '}',
);
const USERS = lines(
  'const users = new Map();',
  '',
  'export function addUser(user) {',
  '  users.set(user.id, user);',
  '}',
);
const DATES = lines(
  'export function isoDay(date) {',
  '  return date.toISOString().slice(0, 10);',
  '}',
);

/**
 * The sample repository, built with real git: a base on main and three pull requests with seeded
 * defects — `discount` (a branch; an off-by-one on cart.js:10), `user-lookup` (a patch on main
 * whose commit is in no repository; a possibly undefined user on users.js:9) and `iso-month`
 * (a branch with no defect).
 */
function sampleRepository(root: string): { patch: string } {
  mkdirSync(root, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
      cwd: root,
      encoding: 'utf8',
    });
  const commit = (message: string, files: Record<string, string>) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    git('add', '-A');
    git('commit', '--quiet', '-m', message);
  };
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.email', 'tests@caravel.invalid');
  git('config', 'user.name', 'Caravel tests');
  git('config', 'commit.gpgsign', 'false');
  commit('base', { 'src/cart.js': CART, 'src/users.js': USERS, 'src/dates.js': DATES });
  git('checkout', '--quiet', '-b', 'discount');
  commit('discounted totals', {
    'src/cart.js':
      CART +
      lines(
        '',
        'export function discounted(items, rate) {',
        '  const prices = items.map((item) => item.price);',
        '  let sum = 0;',
        '  for (let i = 0; i <= prices.length; i++) {',
        '    sum += prices[i];',
        '  }',
        '  return sum * (1 - rate);',
        '}',
      ),
  });
  git('checkout', '--quiet', '-b', 'iso-month', 'main');
  commit('iso month', {
    'src/dates.js':
      DATES +
      lines(
        '',
        'export function isoMonth(date) {',
        '  return date.toISOString().slice(0, 7);',
        '}',
      ),
  });
  git('checkout', '--quiet', '-b', 'user-lookup', 'main');
  commit('display names', {
    'src/users.js':
      USERS +
      lines(
        '',
        'export function displayName(id) {',
        '  const user = users.get(id);',
        '  return user.name.trim();',
        '}',
      ),
  });
  const patch = git('diff', 'main', 'user-lookup');
  git('checkout', '--quiet', 'main');
  git('branch', '--quiet', '-D', 'user-lookup');
  return { patch };
}

const finding = (file: string, line: number, severity: string, title: string) => ({
  name: 'add_finding',
  args: {
    severity,
    confidence: 'high',
    category: 'correctness',
    title,
    file,
    start_line: line,
    description: `${title}.`,
  },
});

/**
 * One scripted reviewer for every case: it files the same four findings each time; the ones
 * outside a case's diff are refused by add_finding (as they would be for a real model), so each
 * case keeps only those on its own lines.
 */
const REVIEWER_SCRIPT = {
  responses: [
    { tool_calls: [{ name: 'list_findings', args: {} }] },
    { tool_calls: [finding('src/cart.js', 10, 'high', 'The loop reads one past the end')] },
    { tool_calls: [finding('src/users.js', 9, 'high', 'user may be undefined')] },
    { tool_calls: [finding('src/dates.js', 6, 'medium', 'toISOString is in UTC')] },
    { tool_calls: [finding('src/cart.js', 13, 'low', 'Name the discount rate')] },
    { tool_calls: [{ name: 'publish_review', args: {} }] },
    { content: 'Reviewed.' },
  ],
};

describe('caravel review-eval', () => {
  let root: string;
  let setDir: string;
  let env: Record<string, string>;

  const readResult = (out: string): ReviewEvalResult =>
    reviewEvalResultSchema.parse(JSON.parse(readFileSync(join(out, 'review-eval.json'), 'utf8')));

  const writeSet = (name: string, set: unknown) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'review-set.json'), JSON.stringify(set, null, 2));
    return dir;
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'caravel-review-eval-spec-'));
    setDir = join(root, 'sample');
    const { patch } = sampleRepository(join(setDir, 'repo'));
    mkdirSync(join(setDir, 'patches'));
    writeFileSync(join(setDir, 'patches', 'user-lookup.diff'), patch);
    writeSet('sample', {
      repository: 'repo',
      cases: [
        {
          id: 'discount',
          base: 'main',
          head: 'discount',
          title: 'Discounted totals',
          defects: [{ file: 'src/cart.js', startLine: 10, description: 'off by one' }],
        },
        {
          id: 'user-lookup',
          base: 'main',
          patch: 'patches/user-lookup.diff',
          defects: [{ file: 'src/users.js', startLine: 9, severity: 'high' }],
        },
        { id: 'iso-month', base: 'main', head: 'iso-month', defects: [] },
      ],
    });
    writeFileSync(join(root, 'reviewer.script.yaml'), JSON.stringify(REVIEWER_SCRIPT));
    writeFileSync(
      join(root, 'judge.script.yaml'),
      JSON.stringify({ responses: [{ content: 'NO: the finding is about something else.' }] }),
    );
    // bubblewrap and git where a Linux machine has them.
    env = { PATH: '/usr/local/bin:/usr/bin:/bin', HOME: root };
  });

  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('reviews each labelled pull request through the reviewer and scores its findings', async () => {
    const cli = io();
    const out = join(root, 'out');
    const model = `scripted:${join(root, 'reviewer.script.yaml')}`;
    const status = await runCli(['review-eval', setDir, '--model', model, '--out', out], env, cli);
    expect(cli.errors.join('')).toBe('');
    expect(status).toBe(0);

    const result = readResult(out);
    expect(result).toMatchObject({ set: 'sample', model, judge: null, tolerance: 0 });
    const byCase = new Map(result.cases.map((c) => [c.id, c]));
    const places = (id: string) =>
      byCase.get(id)?.findings.map((f) => `${f.file}:${f.startLine} ${f.severity}`);
    expect(places('discount')).toEqual(['src/cart.js:10 high', 'src/cart.js:13 low']);
    expect(places('user-lookup')).toEqual(['src/users.js:9 high']);
    expect(places('iso-month')).toEqual(['src/dates.js:6 medium']);
    expect(byCase.get('discount')?.score).toMatchObject({ matched: 1, precision: 0.5, recall: 1 });
    expect(byCase.get('user-lookup')?.score).toMatchObject({ matched: 1, precision: 1, recall: 1 });
    expect(byCase.get('iso-month')?.score).toMatchObject({ found: 1, precision: 0, recall: null });
    expect(byCase.get('discount')?.modelCalls).toBe(7);
    expect(result.totals).toMatchObject({
      expected: 2,
      found: 4,
      matched: 2,
      precision: 0.5,
      recall: 1,
    });
    expect(result.totals.f1).toBeCloseTo(2 / 3);

    const text = cli.written.join('');
    expect(text).toMatch(/\[\d\/3\] discount: 2 finding\(s\), 1\/1 defect\(s\) found \(7 calls/);
    expect(text).toMatch(/^all\s+2\s+4\s+2\s+50\.0%\s+100\.0%\s+66\.7%/m);
    expect(text).toContain('iso-month: false positive src/dates.js:6 "toISOString is in UTC"');
    expect(text).toContain(`written: ${join(out, 'review-eval.json')}`);

    // What the reviewer would have posted: one review, the low finding under the threshold.
    const transcript = JSON.parse(readFileSync(join(out, 'cases', 'discount.json'), 'utf8')) as {
      conversation: { role: string; toolCalls?: { name: string }[] }[];
      posted: { reviews: unknown[]; comments: { path: string; line: number }[] };
    };
    expect(transcript.posted.reviews).toHaveLength(1);
    expect(transcript.posted.comments.map((c) => `${c.path}:${c.line}`)).toEqual([
      'src/cart.js:10',
    ]);
    expect(transcript.conversation[0]?.role).toBe('human');
    expect(transcript.conversation.flatMap((m) => m.toolCalls ?? []).map((c) => c.name)).toContain(
      'publish_review',
    );
  }, 180_000);

  it('drops findings under the minimum severity and lets a judge refuse a pair', async () => {
    const cli = io();
    const out = join(root, 'judged');
    const status = await runCli(
      [
        'review-eval',
        join(setDir, 'review-set.json'),
        '--model',
        `scripted:${join(root, 'reviewer.script.yaml')}`,
        '--judge',
        `scripted:${join(root, 'judge.script.yaml')}`,
        '--min-severity',
        'medium',
        '--concurrency',
        '1',
        '--sandbox',
        'local',
        '--out',
        out,
      ],
      env,
      cli,
    );
    expect(cli.errors.join('')).toBe('');
    expect(status).toBe(0);
    const result = readResult(out);
    expect(result.minSeverity).toBe('medium');
    const discount = result.cases.find((c) => c.id === 'discount');
    expect(discount?.score).toMatchObject({ found: 1, matched: 0, missed: [0] });
    expect(discount?.score?.ignored).toHaveLength(1);
    expect(result.cases.flatMap((c) => c.judged)).toEqual([
      expect.objectContaining({ defect: 0, accepted: false, answer: expect.stringMatching(/^NO/) }),
      expect.objectContaining({ defect: 0, accepted: false }),
    ]);
    expect(result.totals).toMatchObject({ expected: 2, found: 3, matched: 0 });
  }, 180_000);

  it('records each run and case in the database, compares two runs on F1 and resumes a run', async () => {
    const url = `pglite:${join(root, 'db')}`;
    const reviewer = `scripted:${join(root, 'reviewer.script.yaml')}`;
    const review = async (config: string, ...extra: string[]) => {
      const cli = io();
      const args = ['review-eval', setDir, '--model', reviewer, '--sandbox', 'local'];
      const status = await runCli(
        [...args, '--config', config, '--database-url', url, '--out', join(root, config), ...extra],
        env,
        cli,
      );
      expect(cli.errors.join('')).toBe('');
      expect(status).toBe(0);
      return readResult(join(root, config));
    };
    const current = await review('current');
    const judged = await review('judged', '--judge', `scripted:${join(root, 'judge.script.yaml')}`);
    expect(current).toMatchObject({ config: 'current', runId: expect.any(String) });

    const compare = async (...args: string[]) => {
      const cli = io();
      const status = await runCli(['eval', 'compare', ...args, '--database-url', url], env, cli);
      return { status, text: cli.written.join('') + cli.errors.join('') };
    };
    // Two cases of three lose their match: p = 1/4, noise at the default alpha...
    const noise = await compare(current.runId ?? '', judged.runId ?? '');
    expect(noise.text).toContain('worse (2): discount, user-lookup');
    expect(noise.text).toMatch(/gate: accept — F1 down 66\.7 points but not significant/);
    expect(noise.status).toBe(0);
    // ...refused where the threshold allows it; the files compare the same way.
    const refused = await compare(current.runId ?? '', judged.runId ?? '', '--alpha', '0.3');
    expect(refused.text).toMatch(/gate: refuse — F1 down 66\.7 points .* p = 0\.25 < 0\.3/);
    expect(refused.status).toBe(1);
    const files = await compare(join(root, 'current'), join(root, 'judged'), '--alpha', '0.3');
    expect(files.status).toBe(1);
    expect((await compare(join(root, 'current'), join(root, 'out'))).text).toContain(
      'gate: accept',
    );

    // A run resumed under its id reviews only the case it had not recorded.
    const { EvalRecords } = await import('../eval/eval-records.js');
    const records = await EvalRecords.open(url);
    try {
      const runId = current.runId ?? '';
      const cases = await records.reviewCases.casesOf(runId);
      expect(cases.map((c) => [c.caseId, c.matched])).toEqual([
        ['discount', 1],
        ['iso-month', 0],
        ['user-lookup', 1],
      ]);
      const { readReviewSet } = await import('./review-set-files.js');
      const { runReviewEval } = await import('./review-eval.service.js');
      const written: string[] = [];
      const set = await readReviewSet(setDir);
      const reviewUnder = (runId: string) =>
        runReviewEval({
          set,
          model: reviewer,
          modelOrigin: '--model',
          concurrency: 1,
          tolerance: 0,
          minSeverity: 'low',
          sandbox: 'local',
          out: join(root, 'resumed'),
          env,
          write: (line) => written.push(line),
          records,
          runId,
        });
      const resumed = await reviewUnder(randomUUID());
      expect(written.filter((l) => l.startsWith('['))).toHaveLength(3);
      const again = await reviewUnder(resumed.result.runId ?? '');
      expect(written.filter((l) => l.startsWith('['))).toHaveLength(3);
      expect(again.result.totals).toEqual(resumed.result.totals);
      expect((await records.runs.find(resumed.result.runId ?? ''))?.status).toBe('finished');
    } finally {
      await records.close();
    }
  }, 180_000);

  it("gates a review style's edit: one that keeps the F1 becomes the live version, one that drops it is refused", async () => {
    const url = `pglite:${join(root, 'style-db')}`;
    // A reviewer that misses both defects: only the UTC remark (a false positive) is filed.
    const misses = join(root, 'misses.script.yaml');
    writeFileSync(
      misses,
      JSON.stringify({
        responses: [
          { tool_calls: [{ name: 'list_findings', args: {} }] },
          { tool_calls: [finding('src/dates.js', 6, 'medium', 'toISOString is in UTC')] },
          { tool_calls: [{ name: 'publish_review', args: {} }] },
          { content: 'Reviewed.' },
        ],
      }),
    );
    const finds = `scripted:${join(root, 'reviewer.script.yaml')}`;
    const { EvalRecords } = await import('../eval/eval-records.js');
    const records = await EvalRecords.open(url);
    const LEARNED = 'Acme reviews correctness first and never comments on naming.';
    const SHARPER = 'Acme reviews correctness first: name the input that breaks the code.';
    const LAX = 'Acme trusts its authors: remark only on time zones.';
    const propose = async (
      proposals: typeof records.proposals,
      prompt: string,
      baseVersion: number,
    ) =>
      (
        await proposals.propose({
          id: randomUUID(),
          suite: 'sample',
          config: 'style:acme/widgets',
          model: '',
          settings: {},
          proposedBy: 'alice',
          createdAt: new Date(),
          style: { repository: 'acme/widgets', prompt, baseVersion },
        })
      ).id;
    let sharper: string;
    try {
      await records.styles.save({
        repository: 'acme/widgets',
        mode: 'bootstrap',
        threadId: randomUUID(),
        prompt: LEARNED,
        summary: 'Correctness first.',
        wordCount: 9,
        model: 'scripted:style.yaml',
        pullRequests: [1, 2],
        commentIds: ['7'],
        reviewers: ['bob'],
        counts: { pullRequests: 2, comments: 1, reviewers: 1 },
      });
      sharper = await propose(records.proposals, SHARPER, 1);
    } finally {
      await records.close();
    }
    const run = async (proposal: string, model: string) => {
      const cli = io();
      const out = join(root, `gate-${proposal.slice(0, 8)}`);
      const args = ['--set', setDir, '--model', model, '--sandbox', 'local', '--concurrency', '3'];
      const status = await runCli(
        // Three cases: losing two is p = 1/4, refused at --alpha 0.3 (as compare is, above).
        ['eval', 'gate-style', '--proposal', proposal, ...args, '--alpha', '0.3', '--out', out],
        { ...env, CARAVEL_DATABASE_URL: url },
        cli,
      );
      expect(cli.errors.join('')).not.toMatch(/\n\s+at /);
      return { status, text: cli.written.join(''), out };
    };

    // No run of the style in force yet: the gate reviews the set with it first, then the edit.
    const kept = await run(sharper, finds);
    expect(kept.text).toContain("baseline: reviewing 'sample' as style:acme/widgets@v1");
    expect(kept.text).toMatch(/gate: accept/);
    expect(kept.text).toMatch(/accepted, now version 2 \(edited by alice\)/);
    expect(kept.status).toBe(0);
    // The reviewer was given each side's style in its brief.
    const briefOf = (side: string) =>
      readFileSync(join(kept.out, side, 'cases', 'discount.json'), 'utf8');
    expect(briefOf('baseline')).toContain(LEARNED);
    expect(briefOf('candidate')).toContain(SHARPER);
    expect(briefOf('candidate')).not.toContain(LEARNED);

    const again = await EvalRecords.open(url);
    let lax: string;
    try {
      expect(await again.styles.latest('acme/widgets')).toMatchObject({
        version: 2,
        mode: 'edited',
        prompt: SHARPER,
        editedBy: 'alice',
        proposalId: sharper,
        pullRequests: [1, 2],
      });
      expect(await again.proposals.find(sharper)).toMatchObject({
        status: 'accepted',
        styleVersion: 2,
        delta: 0,
        numbers: { model: finds, worse: [], better: [] },
      });
      lax = await propose(again.proposals, LAX, 2);
    } finally {
      await again.close();
    }

    // The edit that made version 2 was measured: its run is the baseline, nothing runs again.
    const refused = await run(lax, `scripted:${misses}`);
    expect(refused.text).not.toContain('baseline: reviewing');
    expect(refused.text).toMatch(/gate: refuse/);
    expect(refused.text).toContain(`proposal ${lax} (acme/widgets): refused`);
    expect(refused.status).toBe(1);

    const last = await EvalRecords.open(url);
    try {
      expect(await last.styles.latest('acme/widgets')).toMatchObject({
        version: 2,
        prompt: SHARPER,
      });
      const decided = await last.proposals.find(lax);
      expect(decided).toMatchObject({ status: 'refused', styleVersion: null, alpha: 0.3 });
      expect(decided?.delta).toBeCloseTo(-2 / 3);
      expect(decided?.reason).toMatch(/F1/);
      expect(decided?.numbers).toMatchObject({ worse: ['discount', 'user-lookup'] });
    } finally {
      await last.close();
    }
  }, 180_000);

  describe('refuses bad input in one line', () => {
    const refusal = async (args: string[], extraEnv: Record<string, string> = {}) => {
      const cli = io();
      const status = await runCli(['review-eval', ...args], { ...env, ...extraEnv }, cli);
      const text = cli.errors.join('');
      expect(text).not.toMatch(/\n\s+at /);
      return { status, text };
    };
    const model = () => ['--model', `scripted:${join(root, 'reviewer.script.yaml')}`];

    it('a missing set, a set that is not one, a malformed one', async () => {
      expect(await refusal([join(root, 'nope'), ...model()])).toEqual({
        status: 1,
        text: `caravel review-eval: ${join(root, 'nope')}: no such file or folder\n`,
      });
      const bad = writeSet('bad', { cases: [{ id: 'x', base: 'main', defects: [] }] });
      expect(await refusal([bad, ...model()])).toEqual({
        status: 1,
        text: `caravel review-eval: ${join(bad, 'review-set.json')}: cases.0.head: a case has a head or a patch (one of them)\n`,
      });
      writeFileSync(join(bad, 'review-set.json'), '{"cases": [');
      expect((await refusal([bad, ...model()])).text).toMatch(
        /^caravel review-eval: .*review-set\.json: not JSON \(.*\)\n$/,
      );
    });

    it('a ref the repository lacks, a patch that does not apply, a missing repository', async () => {
      const repo = join(setDir, 'repo');
      const refSet = writeSet('bad-ref', {
        repository: repo,
        cases: [{ id: 'gone', base: 'main', head: 'no-such-branch', defects: [] }],
      });
      expect(await refusal([refSet, ...model()])).toEqual({
        status: 1,
        text: `caravel review-eval: case gone: head 'no-such-branch' is not a commit of ${repo}\n`,
      });
      const patchSet = writeSet('bad-patch', {
        repository: repo,
        cases: [{ id: 'twice', base: 'discount', patch: 'p.diff', defects: [] }],
      });
      writeFileSync(
        join(patchSet, 'p.diff'),
        execFileSync('git', ['diff', 'main', 'discount'], { cwd: repo }),
      );
      expect((await refusal([patchSet, ...model()])).text).toMatch(
        /^caravel review-eval: case twice: its patch does not apply on [0-9a-f]{12}: .*\n$/,
      );
      const noRepo = writeSet('no-repo', {
        repository: 'missing',
        cases: [{ id: 'a', base: 'main', head: 'x', defects: [] }],
      });
      expect((await refusal([noRepo, ...model()])).text).toBe(
        `caravel review-eval: ${join(noRepo, 'review-set.json')}: cases.0.repository: missing: no such directory\n`,
      );
    }, 60_000);

    it('no model, a model that cannot work, and usage errors', async () => {
      expect(await refusal([setDir])).toEqual({
        status: 1,
        text: 'caravel review-eval: no reviewer model: pass --model (e.g. scripted:FILE, anthropic:claude-sonnet-4-5) or set REVIEWER_MODEL or CARAVEL_MODEL\n',
      });
      const keyless = await refusal([setDir, '--model', 'anthropic:claude-sonnet-4-5']);
      expect(keyless.status).toBe(1);
      expect(keyless.text).toMatch(
        /^caravel review-eval: --model is anthropic:claude-sonnet-4-5, whose provider needs ANTHROPIC_API_KEY/,
      );
      expect((await refusal([])).status).toBe(2);
      const usage = await refusal([setDir, ...model(), '--min-severity', 'huge']);
      expect(usage.status).toBe(2);
      expect(usage.text).toMatch(
        /^caravel review-eval: --min-severity must be low, medium, high, critical, not 'huge'\n/,
      );
    });
  });
});
