import type { JiraConfig } from '../adapters/integrations.config.js';
import type { ChannelSettings } from '../settings/integration.settings.js';
import { AtlassianRest } from './atlassian-rest.js';
import { JiraTracker } from './jira-tracker.js';

/** The Jira site and service account, as `channelSettingsSchema` names them. */
export type JiraServiceAccountSettings = Pick<
  ChannelSettings,
  'JIRA_BASE_URL' | 'JIRA_EMAIL' | 'JIRA_API_TOKEN'
>;

/** The settings an error names when the Jira service account is missing. */
export const JIRA_SERVICE_ACCOUNT_SETTINGS = 'JIRA_BASE_URL, JIRA_EMAIL and JIRA_API_TOKEN';

/** True when the Jira site and the service account's email and API token are all set. */
export function jiraConfigured(settings: JiraServiceAccountSettings): boolean {
  return Boolean(settings.JIRA_BASE_URL && settings.JIRA_EMAIL && settings.JIRA_API_TOKEN);
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
