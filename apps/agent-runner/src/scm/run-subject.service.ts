import type { EnvelopeOf, StartRunV1 } from '@caravel/contracts';
import { ThreadRepository } from '@caravel/db';
import { isAppError } from '@caravel/errors';
import type { ScmReadPort } from '@caravel/tools';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { RunIntegrationsService } from '../integrations/run-integrations.service.js';
import {
  headIsInRepository,
  issueNumberOf,
  pullFromSubject,
  pullRequestNumberOf,
  type RunSubject,
  type SubjectConversation,
} from './run-subject.js';

type StartRun = EnvelopeOf<typeof StartRunV1>['data'];

/** How much of a pull request's or issue's recent conversation a run opens with. */
const RECENT_REVIEW_COMMENTS = 30;
const RECENT_COMMENTS = 20;
const NO_COMMENTS: SubjectConversation = { review: [], conversation: [] };

/**
 * Finds what a run was asked on, before its sandbox is acquired (the branch depends on it): the
 * pull request or issue its thread points at, read live from GitHub through the SCM's read side
 * (the webhook's copy stands in when GitHub cannot be read), and the head its thread recorded.
 */
@Injectable()
export class RunSubjectService {
  private readonly log = new Logger('RunSubject');

  constructor(
    @Inject(RunIntegrationsService) private readonly integrations: RunIntegrationsService,
    @Inject(ThreadRepository) private readonly threads: ThreadRepository,
  ) {}

  async resolve(run: StartRun): Promise<RunSubject> {
    if (run.source !== 'github') return { kind: 'none' };
    const reader = this.integrations.scmReader(run);
    const pullNumber = pullRequestNumberOf(run);
    if (pullNumber !== undefined) return this.pullRequest(run, pullNumber, reader);
    const issueNumber = issueNumberOf(run);
    if (issueNumber === undefined) return { kind: 'none' };
    const issue = reader ? await this.read(run, () => reader.getIssue(issueNumber)) : null;
    const comments = await this.conversation(run, reader, issueNumber, false);
    return { kind: 'issue', issue, asked: run.subject, comments };
  }

  private async pullRequest(
    run: StartRun,
    number: number,
    reader: ScmReadPort | null,
  ): Promise<RunSubject> {
    const asked = run.subject?.kind === 'pull_request' ? run.subject : undefined;
    const live = reader ? await this.read(run, () => reader.getPullRequest(number)) : null;
    const pull = live ?? (asked ? pullFromSubject(asked) : null);
    const comments = await this.conversation(run, reader, number, true);
    if (!pull || pull.state !== 'open' || !run.repository) {
      return { kind: 'issue', issue: null, asked: run.subject, comments };
    }
    if (!headIsInRepository(pull, run.repository)) return { kind: 'fork', pull, asked, comments };
    const threadHead = (await this.threads.get(run.threadId))?.headSha ?? null;
    return { kind: 'pull-request', pull, asked, comments, threadHead };
  }

  /** The recent review comments (pull requests) and conversation; none when unreadable. */
  private async conversation(
    run: StartRun,
    reader: ScmReadPort | null,
    number: number,
    pullRequest: boolean,
  ): Promise<SubjectConversation> {
    if (!reader) return NO_COMMENTS;
    const review = pullRequest
      ? await this.read(run, () => reader.listReviewComments(number, RECENT_REVIEW_COMMENTS))
      : [];
    const conversation = await this.read(run, () =>
      reader.listIssueComments(number, RECENT_COMMENTS),
    );
    return { review: review ?? [], conversation: conversation ?? [] };
  }

  /** A read from GitHub, or null (logged) when GitHub answers with a coded error. */
  private async read<T>(run: StartRun, reading: () => Promise<T>): Promise<T | null> {
    try {
      return await reading();
    } catch (error) {
      if (!isAppError(error)) throw error;
      this.log.warn(
        `thread ${run.threadId}: GitHub could not be read (${error.code}): ${error.message}`,
      );
      return null;
    }
  }
}
