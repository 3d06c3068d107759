import {
  bearerToken,
  LoopbackApi,
  type FakeResponse,
  type RecordedCall,
} from '../http/loopback-api.js';

/** A page the fake search engine knows. */
export interface FakeSearchDocument {
  title: string;
  url: string;
  content: string;
}

const failure = (status: number, error: string): FakeResponse => ({
  status,
  body: { detail: { error } },
});

/**
 * A Tavily Search API stand-in on 127.0.0.1: `POST /search` behind a bearer API key, answering
 * with the indexed documents whose title or content holds every word of the query (in the order
 * they were indexed), at most `max_results` (Tavily's default 5, limit 20), in Tavily's
 * answer shape (`query`, `results[{title, url, content, score, raw_content}]`, `response_time`).
 * Errors use Tavily's `{"detail": {"error": ...}}` body.
 */
export class FakeTavily extends LoopbackApi {
  readonly documents: FakeSearchDocument[] = [];
  private readonly keys = new Set<string>();

  constructor() {
    super();
    this.authorize((call) => {
      const key = bearerToken(call);
      return key && this.keys.has(key)
        ? null
        : failure(401, 'Unauthorized: missing or invalid API key.');
    });
    this.route('POST', '/search', (call) => this.search(call));
  }

  /** Accepts `key` as an API key. */
  addKey(key: string): this {
    this.keys.add(key);
    return this;
  }

  /** Indexes a document. */
  index(document: FakeSearchDocument): this {
    this.documents.push(document);
    return this;
  }

  private search(call: RecordedCall): FakeResponse {
    const query = call.body?.['query'];
    if (typeof query !== 'string' || query.trim() === '') return failure(400, 'Query is missing.');
    const max = call.body?.['max_results'] ?? 5;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 0 || max > 20) {
      return failure(400, 'max_results must be an integer between 0 and 20.');
    }
    const words = query.toLowerCase().split(/\s+/).filter(Boolean);
    const found = this.documents
      .filter((document) => {
        const haystack = `${document.title} ${document.content}`.toLowerCase();
        return words.every((word) => haystack.includes(word));
      })
      .slice(0, max);
    return {
      status: 200,
      body: {
        query,
        follow_up_questions: null,
        answer: null,
        images: [],
        results: found.map((document, rank) => ({
          title: document.title,
          url: document.url,
          content: document.content,
          score: 1 / (rank + 1),
          raw_content: null,
        })),
        response_time: '0.01',
      },
    };
  }
}
