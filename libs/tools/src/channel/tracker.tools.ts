import { z } from 'zod';
import type { CaravelTool } from '../core/tool-definition.js';
import type {
  ChannelMessage,
  IssueTrackerPort,
  LinearPort,
  TrackerContainer,
  TrackerIssue,
  TrackerIssueChanges,
} from './channel.ports.js';
import { defineChannelTool, renderChannelMessages } from './channel-tool.js';
import { wrapUntrusted } from './untrusted-content.js';

/** How a tracker is named in tool names and texts. */
interface Tracker {
  /** Tool-name prefix: `linear` or `jira`. */
  prefix: 'linear' | 'jira';
  label: string;
  /** What an issue is addressed by, for the model. */
  issueRef: string;
  /** What an issue is created in. */
  container: string;
}

const LINEAR: Tracker = {
  prefix: 'linear',
  label: 'Linear',
  issueRef: 'Linear issue id or identifier (e.g. ENG-12)',
  container: 'Linear team id (see linear_list_teams)',
};
const JIRA: Tracker = {
  prefix: 'jira',
  label: 'Jira',
  issueRef: 'Jira issue key (e.g. PROJ-12)',
  container: 'Jira project key (see jira_list_projects)',
};

const markdown = z.string().trim().min(1).max(60_000);

/** Renders an issue for the model; its title and description are untrusted. */
export function renderIssue(source: string, issue: TrackerIssue): string {
  const facts = [`${issue.key} (${issue.id})`, issue.url];
  if (issue.status) facts.push(`status: ${issue.status}`);
  if (issue.assignee) facts.push(`assignee: ${issue.assignee}`);
  const text = `# ${issue.title}\n\n${issue.description}`;
  return `${facts.join(' | ')}\n${wrapUntrusted(text, { source, id: issue.key })}`;
}

function commentTool(t: Tracker, port: IssueTrackerPort): CaravelTool<{ id: string }> {
  return defineChannelTool({
    name: `${t.prefix}_comment`,
    description: `Post a comment (markdown) on a ${t.label} issue.`,
    effect: 'reply',
    input: z.strictObject({ issue: z.string().trim().min(1).describe(t.issueRef), body: markdown }),
    run: (input) => port.comment(input.issue, input.body),
    observe: (output) => `Comment ${output.id} posted.`,
  });
}

function createIssueTool(t: Tracker, port: IssueTrackerPort): CaravelTool<TrackerIssue> {
  const kind = t.prefix === 'jira' ? { issue_type: z.string().trim().min(1).default('Task') } : {};
  return defineChannelTool({
    name: `${t.prefix}_create_issue`,
    description: `Create a ${t.label} issue.`,
    effect: 'write',
    input: z.strictObject({
      container: z.string().trim().min(1).describe(t.container),
      title: z.string().trim().min(1).max(255),
      description: z.string().max(60_000).optional().describe('Markdown.'),
      ...(t.prefix === 'linear' ? { priority: z.number().int().min(0).max(4).optional() } : {}),
      ...kind,
    }),
    run: (input: Record<string, unknown>) =>
      port.createIssue({
        container: String(input['container']),
        title: String(input['title']),
        ...(typeof input['description'] === 'string' ? { description: input['description'] } : {}),
        ...(typeof input['priority'] === 'number' ? { priority: input['priority'] } : {}),
        ...(typeof input['issue_type'] === 'string' ? { kind: input['issue_type'] } : {}),
      }),
    observe: (issue) => `Created ${issue.key}: ${issue.url}`,
  });
}

function updateIssueTool(t: Tracker, port: IssueTrackerPort): CaravelTool<TrackerIssue> {
  return defineChannelTool({
    name: `${t.prefix}_update_issue`,
    description: `Change the title, description or priority of a ${t.label} issue.`,
    effect: 'write',
    input: z
      .strictObject({
        issue: z.string().trim().min(1).describe(t.issueRef),
        title: z.string().trim().min(1).max(255).optional(),
        description: z.string().max(60_000).optional().describe('Markdown; replaces the old one.'),
        ...(t.prefix === 'linear' ? { priority: z.number().int().min(0).max(4).optional() } : {}),
      })
      .refine(
        (i) => Object.keys(i).some((key) => key !== 'issue'),
        'give at least one field to change',
      ),
    run: ({ issue, ...changes }) => port.updateIssue(issue, changes as TrackerIssueChanges),
    observe: (issue) => `Updated ${issue.key}: ${issue.url}`,
  });
}

function getIssueTool(t: Tracker, port: IssueTrackerPort): CaravelTool<TrackerIssue> {
  return defineChannelTool({
    name: `${t.prefix}_get_issue`,
    description: `Read a ${t.label} issue (title, description, status).`,
    effect: 'read',
    input: z.strictObject({ issue: z.string().trim().min(1).describe(t.issueRef) }),
    run: (input) => port.getIssue(input.issue),
    observe: (issue) => renderIssue(`${t.prefix} issue`, issue),
  });
}

function getCommentsTool(t: Tracker, port: IssueTrackerPort): CaravelTool<ChannelMessage[]> {
  return defineChannelTool({
    name: `${t.prefix}_get_issue_comments`,
    description: `Read the comments of a ${t.label} issue, oldest first.`,
    effect: 'read',
    input: z.strictObject({
      issue: z.string().trim().min(1).describe(t.issueRef),
      limit: z.number().int().min(1).max(200).default(50),
    }),
    run: (input) => port.getComments(input.issue, input.limit),
    observe: (comments) => renderChannelMessages(`${t.prefix} issue comments`, comments),
  });
}

function listContainersTool(
  t: Tracker,
  port: IssueTrackerPort,
  name: string,
): CaravelTool<TrackerContainer[]> {
  return defineChannelTool({
    name,
    description: `List the ${t.label} ${t.prefix === 'linear' ? 'teams' : 'projects'} you can use.`,
    effect: 'read',
    input: z.strictObject({}),
    run: () => port.listContainers(),
    observe: (list) =>
      list.length === 0 ? 'None.' : list.map((c) => `${c.key}\t${c.name}\t(id ${c.id})`).join('\n'),
  });
}

/** The Linear tools: comment, create/update/delete/get issue, comments, teams, search. */
export function linearTools(linear: LinearPort): CaravelTool[] {
  return [
    commentTool(LINEAR, linear),
    createIssueTool(LINEAR, linear),
    updateIssueTool(LINEAR, linear),
    defineChannelTool({
      name: 'linear_delete_issue',
      description: 'Delete (trash) a Linear issue.',
      effect: 'write',
      input: z.strictObject({ issue: z.string().trim().min(1).describe(LINEAR.issueRef) }),
      async run(input) {
        await linear.deleteIssue(input.issue);
        return { issue: input.issue };
      },
      observe: (output) => `Deleted ${output.issue}.`,
    }),
    getIssueTool(LINEAR, linear),
    getCommentsTool(LINEAR, linear),
    listContainersTool(LINEAR, linear, 'linear_list_teams'),
    defineChannelTool({
      name: 'linear_search_issues',
      description: 'Search Linear issues by text.',
      effect: 'read',
      input: z.strictObject({
        query: z.string().trim().min(1),
        limit: z.number().int().min(1).max(50).default(10),
      }),
      run: (input) => linear.searchIssues(input.query, input.limit),
      observe: (issues) =>
        issues.length === 0
          ? 'No issues found.'
          : issues.map((issue) => renderIssue('linear search', issue)).join('\n'),
    }),
  ];
}

/** The Jira tools: comment, create/get/update issue, comments, projects. */
export function jiraTools(jira: IssueTrackerPort): CaravelTool[] {
  return [
    commentTool(JIRA, jira),
    createIssueTool(JIRA, jira),
    getIssueTool(JIRA, jira),
    updateIssueTool(JIRA, jira),
    getCommentsTool(JIRA, jira),
    listContainersTool(JIRA, jira, 'jira_list_projects'),
  ];
}
