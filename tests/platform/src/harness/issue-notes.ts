import { scriptedModel, type ScriptedResponse } from './scenario-run.js';

/**
 * A mention of Caravel in comment `commentId` on issue `issue` of acme/widgets, as GitHub sends
 * it (octocat, a member, writes it).
 */
export function issueMention(issue: number, commentId: number, body = '@caravel add a note') {
  return {
    action: 'created',
    issue: { id: 7_000_000 + issue, number: issue, title: 'Notes', body: 'We need notes.' },
    comment: {
      id: commentId,
      body,
      user: { login: 'octocat', type: 'User' },
      author_association: 'MEMBER',
    },
    repository: { name: 'widgets', private: true, owner: { login: 'acme', type: 'Organization' } },
    sender: { login: 'octocat', type: 'User' },
  };
}

/**
 * A scripted model whose every run adds the next note (NOTE-1.md in a sandbox without notes,
 * NOTE-2.md where NOTE-1.md is), publishes it with `commit_and_open_pr`, takes the steps
 * `afterPublish`, then submits whatever the tool answered, as a model that misreads a failure
 * would.
 */
export function noteModel(dir: string, afterPublish: ScriptedResponse[] = []): Promise<string> {
  return scriptedModel(dir, 'notes', [
    {
      tool_calls: [
        {
          name: 'execute',
          args: { command: 'n=$(ls NOTE-*.md 2>/dev/null | wc -l); echo note > NOTE-$((n+1)).md' },
        },
      ],
    },
    {
      tool_calls: [
        {
          name: 'commit_and_open_pr',
          args: { commit_message: 'Add a note', title: 'Add a note', body: 'Adds a note.' },
        },
      ],
    },
    ...afterPublish,
    { tool_calls: [{ name: 'submit', args: {} }] },
  ]);
}
