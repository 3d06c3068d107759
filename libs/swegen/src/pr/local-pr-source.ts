import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { swegenError } from '../errors/swegen-errors.js';
import { GitRunner } from '../git/git-runner.js';
import { normalizeRepo, type IssueRef } from '../rules/linked-issues.js';
import { crossReferencedIssues, toPullRequestInfo } from './github-mapping.js';
import { injectedPrSchema, type InjectedPr } from './pull-request.schema.js';
import type { IssueInfo, PrFile, PrSource, PullRequestInfo } from './pr-source.js';

const STATUS: Record<string, string> = {
  A: 'added',
  M: 'modified',
  D: 'removed',
  R: 'renamed',
  T: 'changed',
  C: 'copied',
};

/** Parses `git diff --name-status -z` output into GitHub-style file entries. */
function parseNameStatus(raw: string): PrFile[] {
  const parts = raw.split('\0').filter((p) => p !== '');
  const files: PrFile[] = [];
  for (let i = 0; i < parts.length;) {
    const code = parts[i] ?? '';
    const letter = code.charAt(0);
    if (letter === 'R' || letter === 'C') {
      files.push({
        filename: parts[i + 2] ?? '',
        status: STATUS[letter] ?? 'modified',
        previousFilename: parts[i + 1] ?? '',
      });
      i += 3;
    } else {
      files.push({ filename: parts[i + 1] ?? '', status: STATUS[letter] ?? 'modified' });
      i += 2;
    }
  }
  return files.sort((a, b) => (a.filename < b.filename ? -1 : a.filename > b.filename ? 1 : 0));
}

/**
 * The injected PR source: a local clone that holds the PR's base and head commits, and a JSON
 * file in the shape of GitHub's API (see {@link injectedPrSchema}). Nothing touches the network.
 */
export class LocalPrSource implements PrSource {
  private constructor(
    private readonly repoPath: string,
    private readonly data: InjectedPr,
  ) {}

  /** Reads and checks the JSON file; a malformed file is INVALID_INPUT naming the first problems. */
  static async load(repoPath: string, prJsonFile: string): Promise<LocalPrSource> {
    const text = await readFile(prJsonFile, 'utf8').catch(() => {
      throw swegenError('invalid_input', `cannot read the PR file ${prJsonFile}`);
    });
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw swegenError('invalid_input', `${prJsonFile} is not JSON: ${(error as Error).message}`);
    }
    const wrapped =
      raw !== null && typeof raw === 'object' && 'pull_request' in raw
        ? raw
        : { pull_request: raw };
    const parsed = injectedPrSchema.safeParse(wrapped);
    if (!parsed.success) {
      const problems = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
      throw swegenError(
        'invalid_input',
        `${prJsonFile} is not a pull request: ${problems.join('; ')}`,
      );
    }
    return new LocalPrSource(resolve(repoPath), parsed.data);
  }

  /** The repository (`base.repo.full_name`) and number the PR file describes. */
  get identity(): { repo: string; pr: number } {
    const own = this.data.pull_request;
    return { repo: own.base.repo.full_name, pr: own.number };
  }

  private check(repo: string, pr: number): void {
    const own = this.data.pull_request;
    if (normalizeRepo(repo) !== normalizeRepo(own.base.repo.full_name) || pr !== own.number) {
      throw swegenError(
        'invalid_input',
        `the PR file describes ${own.base.repo.full_name}#${own.number}, not ${repo}#${pr}`,
      );
    }
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal must be a rejection
  async getPullRequest(repo: string, pr: number): Promise<PullRequestInfo> {
    this.check(repo, pr);
    return toPullRequestInfo(this.data.pull_request);
  }

  async listFiles(repo: string, pr: number): Promise<PrFile[]> {
    this.check(repo, pr);
    if (this.data.files) {
      return this.data.files.map((f) => ({
        filename: f.filename,
        status: f.status,
        ...(f.previous_filename ? { previousFilename: f.previous_filename } : {}),
      }));
    }
    const git = new GitRunner(this.repoPath);
    const { base, head } = this.data.pull_request;
    const mergeBase = await git.text(['merge-base', base.sha, head.sha]).catch(() => base.sha);
    return parseNameStatus(await git.text(['diff', '--name-status', '-z', mergeBase, head.sha]));
  }

  getIssue(repo: string, issue: number): Promise<IssueInfo | undefined> {
    const own = normalizeRepo(this.data.pull_request.base.repo.full_name);
    const found = (this.data.issues ?? []).find(
      (i) => i.number === issue && normalizeRepo(i.repository ?? own) === normalizeRepo(repo),
    );
    if (!found || found.pull_request !== undefined) return Promise.resolve(undefined);
    return Promise.resolve({
      repo: normalizeRepo(repo),
      number: issue,
      title: found.title,
      body: found.body ?? '',
    });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- a refusal must be a rejection
  async timelineIssueRefs(repo: string, pr: number): Promise<IssueRef[]> {
    this.check(repo, pr);
    return crossReferencedIssues(this.data.timeline ?? [], repo);
  }

  fetchUrl(): string {
    return this.repoPath;
  }
}
