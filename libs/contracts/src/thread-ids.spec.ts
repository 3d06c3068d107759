import {
  confluenceThreadId,
  confluenceThreadKey,
  githubCommitThreadId,
  githubReviewThreadId,
  githubReviewThreadKey,
  githubThreadId,
  githubThreadKey,
  jiraThreadId,
  linearThreadId,
  reviewStyleThreadId,
  reviewStyleThreadKey,
  slackThreadId,
  slackThreadKey,
} from './thread-ids.js';

const PR = { owner: 'acme', repo: 'widgets', number: 42 };
const SLACK = { team: 'T0001', channel: 'C0123', threadTs: '1700000000.000100' };
const LINEAR = '2c7e3b3e-5f3a-4a7f-9a61-0d5a8e0f6b11';
const JIRA = { site: 'acme.atlassian.net', issueId: '10042' };
const CONFLUENCE = { site: 'acme.atlassian.net', pageId: '98310', rootCommentId: '131074' };

describe('thread ids', () => {
  it('derives the documented ids (docs/thread-ids.md) from their keys', () => {
    expect(githubThreadId(PR)).toBe('325c2e32-1a11-5240-894c-3aa20546cbe3');
    expect(githubReviewThreadId(PR)).toBe('59ec28ef-b6ee-5f51-8c35-1672d492b244');
    expect(slackThreadId(SLACK)).toBe('aad444bb-5998-56a1-98dc-4f3dfdaf3f3d');
    expect(linearThreadId(LINEAR)).toBe('fe5f78d5-cf97-5b43-b7d3-e0e6f590b543');
    expect(jiraThreadId(JIRA)).toBe('deb52c06-a99a-5a01-830f-621b172957d2');
    expect(confluenceThreadId(CONFLUENCE)).toBe('6bdfb712-26dd-502f-af78-f4f0c602f47d');
  });

  it("derives a repository's analyzer thread from <owner>/<repo>/review-style, case-insensitively", () => {
    const repository = { owner: 'Acme', repo: 'Widgets' };
    expect(reviewStyleThreadKey(repository)).toBe('acme/widgets/review-style');
    expect(reviewStyleThreadId(repository)).toBe('e0ccc71f-1165-5ade-8df9-06d01c4a26da');
    expect(() => reviewStyleThreadKey({ owner: 'acme', repo: ' ' })).toThrow(/needs a repo/);
  });

  it('keys a Confluence comment thread by the site host, whether given as a host or a base URL', () => {
    expect(confluenceThreadKey(CONFLUENCE)).toBe('confluence:acme.atlassian.net:98310:131074');
    const asUrl = { ...CONFLUENCE, site: 'https://ACME.atlassian.net/wiki' };
    expect(confluenceThreadKey(asUrl)).toBe(confluenceThreadKey(CONFLUENCE));
    expect(confluenceThreadId(asUrl)).toBe(confluenceThreadId(CONFLUENCE));
  });

  it('gives the same id for the same key, whatever the case GitHub ignores', () => {
    expect(githubThreadId({ owner: 'Acme', repo: 'Widgets', number: 42 })).toBe(githubThreadId(PR));
    expect(githubThreadKey(PR)).toBe('github:acme/widgets#42');
    expect(githubReviewThreadKey({ ...PR, owner: 'ACME' })).toBe('github-review:acme/widgets#42');
    expect(slackThreadKey(SLACK)).toBe('slack:T0001:C0123:1700000000.000100');
  });

  it('gives different ids for different objects of one kind', () => {
    expect(githubThreadId({ ...PR, number: 43 })).not.toBe(githubThreadId(PR));
    expect(githubThreadId({ ...PR, repo: 'gadgets' })).not.toBe(githubThreadId(PR));
    expect(slackThreadId({ ...SLACK, channel: 'C0124' })).not.toBe(slackThreadId(SLACK));
    expect(jiraThreadId({ ...JIRA, site: 'other.atlassian.net' })).not.toBe(jiraThreadId(JIRA));
    const otherRoot = { ...CONFLUENCE, rootCommentId: '131075' };
    expect(confluenceThreadId(otherRoot)).not.toBe(confluenceThreadId(CONFLUENCE));
    const otherPage = { ...CONFLUENCE, pageId: '98311' };
    expect(confluenceThreadId(otherPage)).not.toBe(confluenceThreadId(CONFLUENCE));
  });

  it('never collides across kinds, even when the raw identifiers are equal', () => {
    const same = '42';
    const ids = [
      githubThreadId({ owner: 'a', repo: 'b', number: 42 }),
      githubCommitThreadId({ owner: 'a', repo: 'b', sha: same }),
      githubReviewThreadId({ owner: 'a', repo: 'b', number: 42 }),
      slackThreadId({ team: 'a', channel: 'b', threadTs: same }),
      linearThreadId(same),
      jiraThreadId({ site: 'a', issueId: same }),
      confluenceThreadId({ site: 'a', pageId: same, rootCommentId: same }),
    ];
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('refuses keys with a missing part rather than deriving a shared id', () => {
    expect(() => slackThreadId({ ...SLACK, threadTs: '' })).toThrow(/threadTs/);
    expect(() => linearThreadId(' ')).toThrow(/issueId/);
    expect(() => githubThreadId({ ...PR, number: 0 })).toThrow(/positive number/);
    expect(() => confluenceThreadId({ ...CONFLUENCE, rootCommentId: '' })).toThrow(/rootCommentId/);
  });
});
