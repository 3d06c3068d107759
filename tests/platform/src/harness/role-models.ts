import { ADD_NOTE } from './issue-notes.js';
import type { ScriptedResponse } from './scenario-run.js';

// The service-roles scenario's scripted models, and its accounts on Slack and Linear.

/**
 * The agent's model: every run adds the next note and publishes it, each call priced at a cent
 * (so a person's budget of 1.5 cents pauses a run before its second call).
 */
export const NOTES: ScriptedResponse[] = [
  { cost: 0.01, tool_calls: [{ name: 'execute', args: { command: ADD_NOTE } }] },
  {
    cost: 0.01,
    tool_calls: [
      {
        name: 'commit_and_open_pr',
        args: { commit_message: 'Add a note', title: 'Add a note', body: 'Adds a note.' },
      },
    ],
  },
  { cost: 0.01, tool_calls: [{ name: 'submit', args: {} }] },
];
/** The analyzer's model: lists the merged pull requests (none), then saves a style. */
export const ANALYSIS: ScriptedResponse[] = [
  { tool_calls: [{ name: 'list_merged_pull_requests', args: {} }] },
  {
    tool_calls: [
      {
        name: 'save_review_style_prompt',
        args: {
          prompt: `Name values after what they hold. ${Array.from({ length: 440 }, (_, i) => `rule${i}`).join(' ')}`,
          summary: 'Names say what values hold.',
        },
      },
    ],
  },
  { content: 'Saved.' },
];
/** The reviewer's model: reads the diff, finds one thing on the first note, publishes. */
export const REVIEW: ScriptedResponse[] = [
  { tool_calls: [{ name: 'fetch_review_diff', args: {} }] },
  {
    tool_calls: [
      {
        name: 'add_finding',
        args: {
          severity: 'high',
          confidence: 'high',
          category: 'maintainability',
          title: 'A note that says nothing',
          file: 'NOTE-1.md',
          start_line: 1,
          description: 'The note reads only "note".',
        },
      },
    ],
  },
  { tool_calls: [{ name: 'publish_review', args: {} }] },
  { content: 'Done.' },
];

/** Slack: the workspace, the channel routed to acme/widgets, Caravel's bot and a person. */
export const SLACK = {
  team: 'T0ROLES',
  channel: 'C0ROLES',
  bot: 'UBOTROLES',
  person: 'UROLES',
  secret: 'service-roles-slack',
};
export const SLACK_TOKEN = 'xoxb-service-roles';
/** Linear: the webhook's secret, the API key and a person linked to a GitHub login. */
export const LINEAR = {
  secret: 'service-roles-linear',
  key: 'lin_api_roles',
  user: 'lin-ada',
  login: 'ada',
};
