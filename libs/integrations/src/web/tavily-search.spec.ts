import { FakeTavily } from '@caravel/testing';
import { TavilySearch } from './tavily-search.js';

describe('TavilySearch against the fake Tavily', () => {
  let tavily: FakeTavily;
  const slept: number[] = [];

  const search = (apiKey: string | undefined = 'tvly-key'): TavilySearch =>
    new TavilySearch({
      apiKey,
      apiUrl: tavily.origin,
      retry: { sleep: (ms) => Promise.resolve(void slept.push(ms)) },
    });

  beforeEach(async () => {
    slept.length = 0;
    tavily = new FakeTavily().addKey('tvly-key');
    for (let n = 1; n <= 8; n += 1) {
      tavily.index({
        title: `NestJS guide ${n}`,
        url: `https://docs.example/nest/${n}`,
        content: `How to write a NestJS module, part ${n}.`,
      });
    }
    tavily.index({ title: 'Other', url: 'https://other.example/', content: 'Unrelated.' });
    await tavily.listen();
  });

  afterEach(() => tavily.close());

  it('posts the query with a bearer key and maps title, url and content', async () => {
    const results = await search().search('nestjs module', 3);
    expect(results).toEqual(
      [1, 2, 3].map((n) => ({
        title: `NestJS guide ${n}`,
        url: `https://docs.example/nest/${n}`,
        snippet: `How to write a NestJS module, part ${n}.`,
      })),
    );
    const [call] = tavily.callsTo({ method: 'POST', path: '/search' });
    expect(call?.headers.authorization).toBe('Bearer tvly-key');
    expect(call?.body).toMatchObject({
      query: 'nestjs module',
      max_results: 3,
      search_depth: 'basic',
      include_answer: false,
      include_raw_content: false,
    });
  });

  it('answers an empty list when nothing matches', async () => {
    expect(await search().search('kubernetes operator', 5)).toEqual([]);
  });

  it('names TAVILY_API_KEY when no key is configured, without calling Tavily', async () => {
    await expect(search('').search('x', 1)).rejects.toMatchObject({
      code: 'PRECONDITION_FAILED',
      message: 'Web search (Tavily) is not configured: set TAVILY_API_KEY to use it.',
    });
    expect(tavily.calls).toHaveLength(0);
  });

  it('codes a rejected key, a spent plan and a short rate limit (waited out once)', async () => {
    await expect(search('tvly-wrong').search('x', 1)).rejects.toMatchObject({
      code: 'UNAUTHENTICATED',
    });
    tavily.failNext(
      { path: '/search' },
      { status: 432, body: { detail: { error: 'This request exceeds your plan limit.' } } },
    );
    await expect(search().search('x', 1)).rejects.toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringContaining('exceeds your plan limit') as unknown,
      details: { reason: 'usage_limit' },
    });
    tavily.failNext(
      { path: '/search' },
      { status: 429, headers: { 'retry-after': '2' }, body: { detail: { error: 'slow down' } } },
    );
    expect(await search().search('nestjs', 1)).toHaveLength(1);
    expect(slept).toEqual([2000]);
  });
});
