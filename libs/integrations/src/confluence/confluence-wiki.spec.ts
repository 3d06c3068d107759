import { FakeConfluence } from '@caravel/testing';
import { ConfluenceWiki } from './confluence-wiki.js';

describe('ConfluenceWiki against the fake Confluence', () => {
  let confluence: FakeConfluence;

  const wiki = (token?: string): ConfluenceWiki =>
    new ConfluenceWiki({
      baseUrl: confluence.wikiUrl,
      email: 'caravel@acme.test',
      apiToken: token,
    });

  beforeEach(async () => {
    confluence = new FakeConfluence().addAccount('caravel@acme.test', 'api-token');
    await confluence.listen();
  });

  afterEach(() => confluence.close());

  it('reads a reply back with its page, its conversation root, its author and its text', async () => {
    const root = confluence.addComment({
      pageId: '500',
      storage: '<p>first</p>',
      author: { accountId: 'acc-ana', displayName: 'Ana' },
    });
    const reply = confluence.addComment({
      pageId: '500',
      parentId: root.id,
      storage:
        '<p><ac:link><ri:user ri:account-id="acc-bot" /></ac:link> please fix <strong>this</strong></p>',
      author: { accountId: 'acc-bo', displayName: 'Bo' },
    });

    const read = await wiki('api-token').getComment(reply.id);

    expect(read).toEqual({
      id: reply.id,
      pageId: '500',
      parentCommentId: root.id,
      rootCommentId: root.id,
      author: { accountId: 'acc-bo', displayName: 'Bo' },
      markdown: expect.stringContaining('please fix **this**'),
      mentions: ['acc-bot'],
    });
    expect(confluence.calls[0]?.path).toBe(`/wiki/rest/api/content/${reply.id}`);
  });

  it('treats a top-level comment as its own conversation root', async () => {
    const top = confluence.addComment({
      pageId: '501',
      storage: '<p>hello</p>',
      author: { accountId: 'acc-ana', displayName: 'Ana' },
    });
    const read = await wiki('api-token').getComment(top.id);
    expect(read.rootCommentId).toBe(top.id);
    expect(read.parentCommentId).toBeUndefined();
  });

  it('fails with a coded error for an unknown comment, bad credentials or none', async () => {
    await expect(wiki('api-token').getComment('404')).rejects.toMatchObject({
      code: expect.any(String),
    });
    await expect(wiki('wrong').getComment('1')).rejects.toMatchObject({
      code: expect.any(String),
    });
    await expect(wiki().getComment('1')).rejects.toMatchObject({ code: 'PRECONDITION_FAILED' });
  });

  it('creates, reads, updates and finds pages, storage format in and markdown out', async () => {
    const created = await wiki('api-token').createPage({
      space: 'ENG',
      title: 'Runbook',
      markdown: '# Deploys\n\nRun **make deploy**.',
    });
    expect(confluence.pages[0]?.storage).toBe(
      '<h1>Deploys</h1><p>Run <strong>make deploy</strong>.</p>',
    );

    const updated = await wiki('api-token').updatePage(created.id, {
      markdown: 'Run `make ship`.',
    });
    const read = await wiki('api-token').getPage(created.id);
    const hits = await wiki('api-token').search('make ship', 5);

    expect(updated).toEqual(read);
    expect(read).toEqual({
      id: created.id,
      title: 'Runbook',
      markdown: 'Run `make ship`.',
      version: 2,
      url: `${confluence.wikiUrl}/spaces/ENG/pages/${created.id}`,
    });
    expect(hits).toEqual([
      expect.objectContaining({ id: created.id, title: 'Runbook', url: read.url }),
    ]);
  });

  it('replies in the comment thread once per key, the key kept in a content property', async () => {
    const { page, comment: ask } = confluence.addAsk('<p>@caravel fix the typo</p>');

    const first = await wiki('api-token').replyOnce(
      page.id,
      ask.id,
      'Opened [#4](https://x/pull/4)',
      'reply:r1:a',
    );
    const again = await wiki('api-token').replyOnce(
      page.id,
      ask.id,
      'Opened [#4](https://x/pull/4)',
      'reply:r1:a',
    );
    await wiki('api-token').replyOnce(page.id, ask.id, 'Something else', 'reply:r1:b');

    expect(again).toEqual(first);
    expect(confluence.repliesTo(ask.id).map((c) => c.storage)).toEqual([
      '<p>Opened <a href="https://x/pull/4">#4</a></p>',
      '<p>Something else</p>',
    ]);
    expect(confluence.repliesTo(ask.id)[0]).toMatchObject({
      author: { accountId: 'acc-caravel@acme.test' },
      properties: { 'caravel-idempotency': { idempotencyKey: 'reply:r1:a' } },
    });
    expect((await wiki('api-token').getComment(ask.id)).spaceKey).toBe('ENG');
  });

  it('answers a reply to a comment that is not there with a coded error', async () => {
    const page = confluence.addPage({ spaceKey: 'ENG', title: 'Design', storage: '<p>x</p>' });
    await expect(
      wiki('api-token').replyOnce(page.id, '999999', 'hello', 'reply:r2:a'),
    ).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(wiki().comment(page.id, 'hello')).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
    });
  });
});
