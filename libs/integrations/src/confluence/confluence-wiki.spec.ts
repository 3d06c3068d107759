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
});
