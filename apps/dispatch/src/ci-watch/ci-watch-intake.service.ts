import { CLOCK, type Clock } from '@caravel/config';
import {
  CARAVEL_NAMESPACE,
  uuidV5,
  type CiCheckReportedV1,
  type EnvelopeOf,
  type ManageBabySit,
  type ManageBabySitResponse,
  type RequestOf,
  type RunStepV1,
  type TriggerReceivedV1,
} from '@caravel/contracts';
import { AppError } from '@caravel/errors';
import {
  CiWatchRepository,
  PullRequestHeadRepository,
  ciWatchKey,
  type CiWatchRow,
} from '@caravel/db';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { namesNoPullRequest } from '@caravel/tools';
import { DISPATCH_CONFIG, type DispatchConfig } from '../dispatch.config.js';
import { autofixToggle } from './autofix-toggle.js';
import { agentPushOf, pullRequestOf, type AgentPush } from './ci-watch-state.js';
import { CiWatchService } from './ci-watch.service.js';

/** The coding agent's tool that pushes and opens (or updates) its pull request. */
const OPEN_PR_TOOL = 'commit_and_open_pr';

/** The id of a pull request's watch: one per pull request, whoever starts it. */
export function ciWatchId(owner: string, repo: string, number: number): string {
  return uuidV5(`ci-watch:${ciWatchKey(owner, repo, number)}`, CARAVEL_NAMESPACE);
}

/**
 * Where watches start and what wakes them: the agent's own pushes (a `commit_and_open_pr` result
 * in a run step starts the watch of its pull request on the agent's thread, and records the head
 * it pushed), and check deliveries (each evaluates the watches of the pull requests it names, or,
 * for a commit status, of the watches at that head). The reviewer has no such tool, so its
 * threads never start one.
 */
@Injectable()
export class CiWatchIntakeService {
  private readonly log = new Logger('CiWatch');

  constructor(
    @Inject(CiWatchRepository) private readonly watches: CiWatchRepository,
    @Inject(CiWatchService) private readonly evaluations: CiWatchService,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(DISPATCH_CONFIG) private readonly config: DispatchConfig,
    @Inject(PullRequestHeadRepository) private readonly heads: PullRequestHeadRepository,
  ) {}

  /**
   * `@<handle> autofix on|off` in a comment on a pull request: the person's switch for its watch
   * (`on` outranks their profile and restarts a stopped watch). Said on a pull request nobody
   * watches, it is only logged.
   */
  async onTrigger(trigger: EnvelopeOf<typeof TriggerReceivedV1>): Promise<void> {
    const { source, text, repository, replyTo } = trigger.data;
    const number = replyTo?.['pullRequest'];
    if (source !== 'github' || !repository || typeof number !== 'number') return;
    const toggle = autofixToggle(text, this.config.ciWatch.botHandle);
    if (!toggle) return;
    const key = ciWatchKey(repository.owner, repository.name, number);
    const id = ciWatchId(repository.owner, repository.name, number);
    const set = await this.watches.setAutofix(id, toggle === 'on', this.clock.now());
    if (set) this.log.log(`${key}: autofix ${toggle}, as ${trigger.data.author.externalId} said`);
    else this.log.warn(`${key}: autofix ${toggle} said, but the pull request is not watched`);
  }

  async onCheckReported(envelope: EnvelopeOf<typeof CiCheckReportedV1>): Promise<void> {
    const { event, repository, headSha, pullRequests, check } = envelope.data;
    // GitHub requests a suite of every App that may write checks, on every push; one whose App
    // runs nothing stays queued forever. Its runs report themselves; only its ending counts.
    if (event === 'check_suite' && check.kind === 'check_run' && check.status !== 'completed') {
      this.log.debug(`${repository.owner}/${repository.name}: suite ${check.name} not counted yet`);
      return;
    }
    const found = await this.watchesOf(repository, headSha, pullRequests);
    if (found.length === 0) {
      const where = pullRequests.map((p) => `#${p.number}`).join(', ') || headSha.slice(0, 12);
      this.log.debug(`${repository.owner}/${repository.name} ${where}: no watched pull request`);
      return;
    }
    for (const watch of found) {
      const movedTo = await this.pushedSince(watch, headSha, new Date(envelope.occurredAt));
      if (movedTo) {
        this.log.log(
          `${watch.pullRequestKey}: ${check.name} at ${headSha.slice(0, 12)} was reported before the push to ${movedTo.slice(0, 12)}; not evaluated`,
        );
        continue;
      }
      await this.evaluations.evaluate(watch.id, { headSha, check });
    }
  }

  /**
   * The pull request's head when a push to another commit than `headSha` was heard of at or after
   * the report (`at`): the report is of a head the pull request has left, handled late (checks and
   * pushes are separate consumers), and must not move the watch back to it. Null otherwise.
   */
  private async pushedSince(watch: CiWatchRow, headSha: string, at: Date): Promise<string | null> {
    const pullRequest = {
      owner: watch.repositoryOwner,
      repo: watch.repositoryName,
      number: watch.pullRequest,
    };
    const pushed = await this.heads.since(pullRequest, at);
    return pushed && pushed.headSha !== headSha.toLowerCase() ? pushed.headSha : null;
  }

  /** Starts (or restarts) the watch of each pull request the agent pushed to in this step. */
  async onRunStep(event: EnvelopeOf<typeof RunStepV1>): Promise<void> {
    for (const result of event.data.results) {
      if (result.name !== OPEN_PR_TOOL || result.status !== 'success') continue;
      const push = agentPushOf(result.content);
      if (!push) {
        // A remote without pull requests, or an attempt of retry-and-select: none to watch.
        if (namesNoPullRequest(result.content)) continue;
        this.log.warn(`run ${event.data.runId}: ${OPEN_PR_TOOL} result names no pull request`);
        continue;
      }
      await this.start(event.data.threadId, push, false);
    }
  }

  /**
   * `manage_baby_sit`: a person asked the agent to watch a pull request's CI (an opt-in: the
   * repository's CI auto-fix setting does not apply), or to stop watching it.
   */
  async manage(request: RequestOf<typeof ManageBabySit>): Promise<ManageBabySitResponse> {
    const pull = pullRequestOf(request.pullRequestUrl);
    if (!pull) {
      throw new AppError('BAD_REQUEST', `not a pull request url: ${request.pullRequestUrl}`);
    }
    const key = ciWatchKey(pull.owner, pull.repo, pull.number);
    if (request.action === 'start') {
      const watch = await this.start(request.threadId, { ...pull, commit: null }, true);
      if (watch.headSha) await this.evaluations.evaluate(watch.id);
      return {
        watching: true,
        pullRequest: key,
        message: `Watching CI on ${pull.url}: failing checks get a fix run here, and you hear once it is green.`,
      };
    }
    const stopped = await this.watches.stop(
      ciWatchId(pull.owner, pull.repo, pull.number),
      'stopped_on_request',
      this.clock.now(),
    );
    return {
      watching: false,
      pullRequest: key,
      message: stopped
        ? `Stopped watching CI on ${pull.url}.`
        : `CI on ${pull.url} was not watched.`,
    };
  }

  /** A watch on the agent thread: started by its push, or because a person asked. */
  async start(threadId: string, push: AgentPush, asked: boolean): Promise<CiWatchRow> {
    const watch = await this.watches.start({
      id: ciWatchId(push.owner, push.repo, push.number),
      owner: push.owner,
      repo: push.repo,
      number: push.number,
      url: push.url,
      threadId,
      asked,
      agentHead: push.commit ?? undefined,
      at: this.clock.now(),
    });
    this.log.log(`${watch.pullRequestKey}: watching CI for thread ${threadId}`);
    return watch;
  }

  private async watchesOf(
    repository: { owner: string; name: string },
    headSha: string,
    pullRequests: readonly { number: number }[],
  ): Promise<CiWatchRow[]> {
    if (pullRequests.length === 0) {
      return this.watches.activeAtHead(repository.owner, repository.name, headSha);
    }
    const rows = await Promise.all(
      pullRequests.map((p) =>
        this.watches.findByPullRequest(repository.owner, repository.name, p.number),
      ),
    );
    return rows.filter((row): row is CiWatchRow => row?.active === true);
  }
}
