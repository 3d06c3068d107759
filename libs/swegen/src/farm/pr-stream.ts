import { AppError } from '@caravel/errors';
import { readFile } from 'node:fs/promises';
import { swegenError, swegenErrorReason } from '../errors/swegen-errors.js';
import type { GithubPrSource } from '../pr/github-pr-source.js';
import type { PullRequestInfo } from '../pr/pr-source.js';
import { isTestFile } from '../rules/test-files.js';
import { taskIdFor } from '../rules/task-id.js';
import type { FarmState } from './farm-state.js';

/** Settings of the merged-PR stream. */
export interface PrStreamOptions {
  readonly source: GithubPrSource;
  readonly repo: string;
  readonly state: FarmState;
  /** Task ids (`owner__repo-N`) never to farm. */
  readonly skipTaskIds?: ReadonlySet<string>;
  /** `changed_files` must reach this (a total count, tests included). */
  readonly minFiles: number;
  /** Resume cursor overriding the state's (`created_at` of the last PR handled). */
  readonly resumeFrom?: string;
  readonly perPage?: number;
  readonly sleep?: (ms: number) => Promise<void>;
  readonly log?: (line: string) => void;
  /** Told of each merged PR dropped because it touches no test file (the farm records it). */
  readonly onNoTests?: (pr: PullRequestInfo) => void;
}

/** Why the stream ended early, if it did. */
export interface StreamEnd {
  stopReason?: string;
  error?: unknown;
}

const LIST_ATTEMPTS = 5;
const RATE_WAITS = 3;

/**
 * `--resume-from`: a date `YYYY-MM-DD` (the end of that day, UTC) or a full ISO timestamp, as an
 * ISO string comparable with GitHub's `created_at`.
 */
export function parseResumeFrom(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T23:59:59.999999Z`;
  const ms = Date.parse(value);
  if (Number.isNaN(ms))
    throw swegenError('invalid_input', `--resume-from must be YYYY-MM-DD or ISO, not '${value}'`);
  return new Date(ms).toISOString();
}

/** Reads a skip list: task ids, one a line, `#` comments allowed. */
export async function loadSkipList(path: string): Promise<Set<string>> {
  const text = await readFile(path, 'utf8');
  return new Set(
    text
      .split('\n')
      .map((line) => line.replace(/#.*/, '').trim().toLowerCase())
      .filter((line) => line !== ''),
  );
}

async function listPage(options: PrStreamOptions, page: number): Promise<PullRequestInfo[]> {
  const sleep = options.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  let waits = 0;
  for (let attempt = 1; ;) {
    try {
      return await options.source.listClosedPulls(options.repo, page, options.perPage ?? 100);
    } catch (error) {
      const retryAfter = (error as AppError).details?.['retryAfterSeconds'];
      if (swegenErrorReason(error) === 'rate_limited' && waits < RATE_WAITS) {
        waits += 1;
        const seconds = Math.min(3600, Math.max(1, Number(retryAfter ?? 60) + 1));
        options.log?.(`GitHub rate limit: waiting ${seconds} s before page ${page}`);
        await sleep(seconds * 1000);
        continue;
      }
      const transient = error instanceof AppError && error.code === 'DEPENDENCY_UNAVAILABLE';
      if (!transient || attempt >= LIST_ATTEMPTS) throw error;
      await sleep(Math.min(60, 2 ** attempt) * 1000);
      attempt += 1;
    }
  }
}

/** The reference's filters 2-6 for one merged PR: cursor, processed, skip list, size, tests. */
async function wanted(
  options: PrStreamOptions,
  pr: PullRequestInfo,
  cursor?: string,
): Promise<boolean> {
  const { state } = options;
  if (cursor && pr.createdAt >= cursor && !state.isPending(pr.number)) return false;
  if (state.processed.has(pr.number)) return false;
  if (options.skipTaskIds?.has(taskIdFor(options.repo, pr.number))) return false;
  try {
    if ((await options.source.changedFileCount(options.repo, pr.number)) < options.minFiles)
      return false;
    if (await options.source.touchesFile(options.repo, pr.number, isTestFile)) return true;
    options.onNoTests?.(pr);
    return false;
  } catch (error) {
    if (swegenErrorReason(error) === 'rate_limited') throw error;
    options.log?.(`#${pr.number}: skipped, GitHub detail call failed: ${(error as Error).message}`);
    return false;
  }
}

/**
 * Streams a repository's merged PRs page by page, newest created first, applying the reference's
 * filters, and yields those worth farming. It stops on an empty or short page. List pages are
 * retried (5 attempts on transient errors; a rate limit is waited out at most 3 times); 401, 404
 * and other refusals end the stream with `end.stopReason` set.
 */
export async function* streamMergedPrs(
  options: PrStreamOptions,
  end: StreamEnd = {},
): AsyncGenerator<PullRequestInfo> {
  const perPage = options.perPage ?? 100;
  const cursor = options.resumeFrom ?? options.state.cursor.createdAt ?? undefined;
  for (let page = 1; ; page += 1) {
    let pulls: PullRequestInfo[];
    try {
      pulls = await listPage(options, page);
    } catch (error) {
      if (swegenErrorReason(error) === 'rate_limited') throw error;
      end.stopReason = (error as Error).message;
      end.error = error;
      return;
    }
    options.state.totalFetched += pulls.length;
    for (const pr of pulls) {
      if (!pr.mergedAt) continue;
      if (await wanted(options, pr, cursor)) yield pr;
    }
    if (pulls.length < perPage) return;
  }
}
