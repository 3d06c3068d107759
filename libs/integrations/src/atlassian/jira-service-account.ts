import type { JiraConfig } from '../adapters/integrations.config.js';
import { AtlassianRest } from './atlassian-rest.js';
import { JiraTracker } from './jira-tracker.js';

/** The environment keys an error names when the Jira service account is missing. */
export const JIRA_SERVICE_ACCOUNT_SETTINGS = 'JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN';

/** True when the Jira site and the service account's email and API token are all set. */
export function jiraConfigured(config: JiraConfig): boolean {
  return Boolean(config.baseUrl && config.email && config.apiToken);
}

/**
 * Jira Cloud at the configured site as the service account. Built whatever the configuration:
 * without it every call fails with `PRECONDITION_FAILED` naming
 * {@link JIRA_SERVICE_ACCOUNT_SETTINGS}.
 */
export function jiraServiceAccount(config: JiraConfig): JiraTracker {
  const rest = new AtlassianRest({
    service: 'Jira',
    baseUrl: config.baseUrl,
    email: config.email,
    apiToken: config.apiToken,
    settings: JIRA_SERVICE_ACCOUNT_SETTINGS,
  });
  return new JiraTracker(rest, config.baseUrl ?? '');
}
