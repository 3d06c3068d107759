import {
  IntegrationAdapters,
  JIRA_SERVICE_ACCOUNT_SETTINGS,
  jiraConfigured,
  type JiraTracker,
} from '@caravel/integrations';
import { Inject, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import type { JiraReadBack, JiraRuleBody } from '../events/jira-event.mapper.js';
import { storable } from '../events/untrusted-json.js';
import { payloadMalformed, serviceAccountMissing, siteNotServed } from '../ingress.errors.js';
import { INGRESS_CONFIG, jiraSetupWarning, type IngressConfig } from '../ingress.config.js';

/**
 * Reads a Jira rule's delivery back as the service account (`JIRA_BASE_URL`, `JIRA_EMAIL`,
 * `JIRA_API_TOKEN`): the rule's secret proves the call came from the rule, not what the issue or
 * comment says. Only the configured site is ever read; without the account, it fails closed.
 */
@Injectable()
export class JiraReadBackService implements OnApplicationBootstrap {
  private readonly log = new Logger('JiraReadBack');
  private readonly jira: JiraTracker;
  private ownAccount: Promise<string> | undefined;

  constructor(
    @Inject(INGRESS_CONFIG) private readonly config: IngressConfig,
    @Inject(IntegrationAdapters) adapters: IntegrationAdapters,
  ) {
    this.jira = adapters.tracker('jira');
  }

  onApplicationBootstrap(): void {
    const warning = jiraSetupWarning(this.config);
    if (warning) this.log.warn(warning);
  }

  /**
   * The issue (by key, its id checked against the body's) and, when the body names one, the
   * comment under that issue. Jira's 404 for either reaches the sender as a 404; its 5xx or no
   * answer at all as a retryable 503.
   */
  async read(rule: JiraRuleBody): Promise<JiraReadBack> {
    const site = this.configuredSite();
    if (hostOf(rule.site) !== site) throw siteNotServed('jira', rule.site, site);
    // What Jira returns is untrusted text as well: made storable as it comes in.
    const issue = storable('jira', await this.jira.getIssue(rule.issue.key));
    if (issue.id !== rule.issue.id) {
      throw payloadMalformed(
        'jira',
        `issue ${rule.issue.key} has id ${issue.id} in Jira, not ${rule.issue.id}`,
      );
    }
    if (!rule.comment) return { site, issue };
    const comment = storable('jira', await this.jira.getComment(issue.key, rule.comment.id));
    const own = comment.author.accountId === (await this.ownAccountId());
    return { site, issue, comment, ...(own ? { ownComment: true } : {}) };
  }

  /** The service account's own account id, asked once (again after a failed ask). */
  private ownAccountId(): Promise<string> {
    this.ownAccount ??= this.jira.ownAccountId().catch((error: unknown) => {
      this.ownAccount = undefined;
      throw error;
    });
    return this.ownAccount;
  }

  /** The host of `JIRA_BASE_URL`, once the service account is complete. */
  private configuredSite(): string {
    const base = this.config.integrations.jira.baseUrl;
    if (!base || !jiraConfigured(this.config.integrations.jira)) {
      throw serviceAccountMissing('jira', JIRA_SERVICE_ACCOUNT_SETTINGS);
    }
    return new URL(base).host.toLowerCase();
  }
}

/** A site given as a host (`acme.atlassian.net`) or a URL, as a lower-cased host. */
function hostOf(site: string): string {
  const trimmed = site.trim();
  if (!trimmed.includes('://')) return trimmed.toLowerCase();
  try {
    return new URL(trimmed).host.toLowerCase();
  } catch {
    return trimmed.toLowerCase();
  }
}
