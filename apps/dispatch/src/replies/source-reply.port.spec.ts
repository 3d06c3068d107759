import { FakeConfluence } from '@caravel/testing';
import { SourceReplyPort, replyAdapters } from './source-reply.port.js';

describe("SourceReplyPort (dispatch's replies in the source channel)", () => {
  let confluence: FakeConfluence;
  let warnings: string[];

  beforeEach(async () => {
    confluence = new FakeConfluence().addAccount('svc@acme.test', 'conf-token');
    await confluence.listen();
    warnings = [];
  });

  afterEach(() => confluence.close());

  const port = (settings: Parameters<typeof replyAdapters>[0]) =>
    new SourceReplyPort(replyAdapters(settings), { warn: (m) => void warnings.push(m) });

  const settings = {
    GITHUB_API_URL: 'https://api.github.com',
    CONFLUENCE_EMAIL: 'svc@acme.test',
    CONFLUENCE_API_TOKEN: 'conf-token',
  };

  it('posts a failure reply under the Confluence comment that asked, once per run and text', async () => {
    const { comment: ask, replyTo } = confluence.addAsk('<p>@caravel fix it</p>');
    const destination = { source: 'confluence' as const, replyTo };

    expect(await port(settings).reply(destination, 'run-1', 'It failed.')).toBe('posted');
    expect(await port(settings).reply(destination, 'run-1', 'It failed.')).toBe('posted');

    expect(confluence.repliesTo(ask.id).map((c) => c.storage)).toEqual(['<p>It failed.</p>']);
  });

  it('skips a source without credentials with one warning naming it, and synthetic threads', async () => {
    const unconfigured = port({ GITHUB_API_URL: 'https://api.github.com' });
    const destination = { source: 'confluence' as const, replyTo: { site: 'x', pageId: '1' } };

    expect(await unconfigured.reply(destination, 'run-1', 'a')).toBe('not_configured');
    expect(await unconfigured.reply(destination, 'run-2', 'b')).toBe('not_configured');
    expect(await unconfigured.reply({ source: 'synthetic', replyTo: {} }, 'run-3', 'c')).toBe(
      'no_channel',
    );
    expect(warnings).toEqual([
      expect.stringContaining('replies to confluence threads are skipped'),
    ]);
    expect(confluence.calls).toHaveLength(0);
  });
});
