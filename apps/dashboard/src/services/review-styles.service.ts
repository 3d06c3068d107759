import { randomUUID } from 'node:crypto';
import { AnalyzeReviewStyleV1, reviewStyleThreadId } from '@caravel/contracts';
import {
  EvalProposalRepository,
  ReviewStyleRepository,
  type EvalProposalRow,
  type ReviewStyleRow,
  type ReviewStyleSummaryRow,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { MessagePublisher } from '@caravel/messaging';
import { Inject, Injectable } from '@nestjs/common';
import type { Caller } from '../auth/session.types.js';

const NAME = /^[A-Za-z0-9_.-]{1,100}$/;

/** What a person is told when they ask for an analysis: where it runs, and its id. */
export interface AnalysisRequested {
  repository: string;
  threadId: string;
  requestId: string;
}

/** One version's provenance, without its prompt (read one version at a time). */
export type ReviewStyleVersionView = Omit<ReviewStyleRow, 'id' | 'prompt' | 'commentIds'> & {
  comments: number;
};

/** One version with its prompt. */
export type ReviewStyleDetail = ReviewStyleVersionView & { prompt: string };

/** A repository's versions, the newest first, and its proposed edits. */
export interface ReviewStyleHistory {
  repository: string;
  versions: ReviewStyleVersionView[];
  proposals: EvalProposalRow[];
}

/** An edited prompt to propose for the gate. */
export interface ReviewStyleEdit {
  prompt: string;
  summary?: string | undefined;
  suite: string;
  note?: string | undefined;
}

/**
 * What a missing style is answered with; a hidden one (a repository the member may not see) is
 * answered the same, so its existence is not confirmed.
 */
export const noReviewStyle = (repository: string, version?: number): string =>
  version === undefined
    ? `${repository.toLowerCase()} has no review style`
    : `${repository} has no review style version ${version}`;

function versionView({ id: _id, prompt: _prompt, commentIds, ...row }: ReviewStyleRow) {
  return { ...row, comments: commentIds.length };
}

/** Who is acting: a person's login, or `machine` for the dashboard token. */
function actorOf(caller: Caller): string {
  return caller.kind === 'person' ? caller.session.login : 'machine';
}

/**
 * Review styles: the learned styles per repository (read by members), a bootstrap request, and an
 * admin's edit — recorded as a pending proposal that only the reviewer eval gate turns into a
 * version (`caravel eval gate-style`), never saved as the style directly.
 */
@Injectable()
export class ReviewStylesService {
  constructor(
    @Inject(MessagePublisher) private readonly publisher: MessagePublisher,
    @Inject(ReviewStyleRepository) private readonly styles: ReviewStyleRepository,
    @Inject(EvalProposalRepository) private readonly proposals: EvalProposalRepository,
  ) {}

  /** Publishes a bootstrap request on the repository's analyzer thread. */
  async analyze(caller: Caller, owner: string, name: string): Promise<AnalysisRequested> {
    const repository = repositoryOf(owner, name);
    const threadId = reviewStyleThreadId({ owner, repo: name });
    const requestId = randomUUID();
    await this.publisher.publish(AnalyzeReviewStyleV1, {
      threadId,
      repository: { owner, name },
      mode: 'bootstrap',
      requestedBy: actorOf(caller),
      requestId,
    });
    return { repository, threadId, requestId };
  }

  list(): Promise<ReviewStyleSummaryRow[]> {
    return this.styles.summaries();
  }

  /** The versions, the newest first, and the edits proposed; NOT_FOUND when there are neither. */
  async history(owner: string, name: string, limit: number): Promise<ReviewStyleHistory> {
    const repository = repositoryOf(owner, name).toLowerCase();
    const [versions, proposals] = await Promise.all([
      this.styles.newestFirst(repository, limit),
      this.proposals.list({ kind: 'review-style', repository, limit }),
    ]);
    if (versions.length === 0 && proposals.length === 0)
      throw new AppError('NOT_FOUND', noReviewStyle(repository));
    return { repository, versions: versions.map(versionView), proposals };
  }

  async version(owner: string, name: string, version: number): Promise<ReviewStyleDetail> {
    const repository = repositoryOf(owner, name);
    const row = await this.styles.version(repository, version);
    if (!row) throw new AppError('NOT_FOUND', noReviewStyle(repository, version));
    return { ...versionView(row), prompt: row.prompt };
  }

  /**
   * Records an edited prompt as a pending `review-style` proposal against the version in force.
   * The style in force is untouched: the gate measures the draft with the reviewer eval and saves
   * it as an `edited` version only if the F1 does not drop.
   */
  async propose(
    caller: Caller,
    owner: string,
    name: string,
    edit: ReviewStyleEdit,
  ): Promise<EvalProposalRow> {
    const repository = repositoryOf(owner, name).toLowerCase();
    const current = await this.styles.latest(repository);
    if (current && current.prompt.trim() === edit.prompt)
      throw new AppError(
        'BAD_REQUEST',
        `the prompt is version ${current.version}'s, the one in force: change it to propose an edit`,
      );
    return this.proposals.propose({
      id: randomUUID(),
      suite: edit.suite,
      config: `style:${repository}`,
      model: '',
      settings: {},
      note: edit.note ?? null,
      proposedBy: actorOf(caller),
      createdAt: new Date(),
      style: {
        repository,
        prompt: edit.prompt,
        summary: edit.summary ?? null,
        baseVersion: current?.version ?? null,
      },
    });
  }
}

/** `owner/name`, or BAD_REQUEST for a name GitHub could not have. */
function repositoryOf(owner: string, name: string): string {
  if (!NAME.test(owner) || !NAME.test(name))
    throw new AppError('BAD_REQUEST', `invalid repository ${owner}/${name}: owner/name`);
  return `${owner}/${name}`;
}
