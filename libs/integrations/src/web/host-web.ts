import { AppError } from '@caravel/errors';
import type { HttpRequestSpec, HttpResponseSummary, WebPort } from '@caravel/tools';
import { htmlToText } from './html-to-text.js';
import { decodeBody, isHtml, isTextual, mediaTypeOf } from './response-text.js';
import type { SafeHttpClient, SafeResponse } from './safe-http-client.js';

/** Characters of text a web tool hands the model by default. */
export const DEFAULT_MAX_TEXT_CHARS = 50_000;

const PAGE_ACCEPT = 'text/html,application/xhtml+xml,text/plain;q=0.9,text/*;q=0.8,*/*;q=0.1';

/**
 * The agent's web (`http_request`, `fetch_url`) from the host, through the SSRF-guarded
 * {@link SafeHttpClient}. Bodies come back as text: `fetch_url` reduces HTML to readable
 * markdown-ish text and refuses binary content; `http_request` shows a binary body as a one-line
 * note. Whatever was cut (bytes at the client's limit, characters at `maxTextChars`) is said.
 */
export class HostWeb implements WebPort {
  constructor(
    private readonly http: SafeHttpClient,
    private readonly maxTextChars = DEFAULT_MAX_TEXT_CHARS,
  ) {}

  async request(spec: HttpRequestSpec): Promise<HttpResponseSummary> {
    const response = await this.http.send(spec);
    const type = response.headers['content-type'];
    if (!isTextual(type, response.body)) {
      const what = mediaTypeOf(type) || 'undeclared type';
      const size = `${response.body.length}${response.truncated ? '+' : ''} bytes`;
      return this.summary(response, `[binary response body (${what}, ${size}) not shown]`);
    }
    return this.summary(response, this.shown(decodeBody(type, response.body), response));
  }

  async fetchText(url: string): Promise<HttpResponseSummary> {
    const response = await this.http.send({ method: 'GET', url, headers: { accept: PAGE_ACCEPT } });
    const type = response.headers['content-type'];
    if (!isTextual(type, response.body)) {
      throw new AppError(
        'BAD_REQUEST',
        `${response.url} is not a text page (${mediaTypeOf(type) || 'binary content'}); fetch_url reads HTML and text only.`,
        { details: { url: response.url, contentType: type ?? null } },
      );
    }
    const decoded = decodeBody(type, response.body);
    if (!isHtml(type, decoded)) return this.summary(response, this.shown(decoded, response));
    const page = htmlToText(decoded, response.url);
    const heading = page.title && !page.text.startsWith('# ') ? `# ${page.title}\n\n` : '';
    return this.summary(response, this.shown(`${heading}${page.text}`, response));
  }

  /** The text the model reads, cut at `maxTextChars`, with a note for every cut. */
  private shown(text: string, response: SafeResponse): string {
    const notes: string[] = [];
    let body = text;
    if (response.truncated) {
      notes.push(
        `[truncated: the response is larger than ${this.http.maxResponseBytes} bytes; only the first ${this.http.maxResponseBytes} bytes were read]`,
      );
    }
    if (body.length > this.maxTextChars) {
      notes.push(
        `[truncated: showing the first ${this.maxTextChars} of ${body.length} characters]`,
      );
      body = body.slice(0, this.maxTextChars);
    }
    return notes.length === 0 ? body : `${body}\n\n${notes.join('\n')}`;
  }

  private summary(response: SafeResponse, body: string): HttpResponseSummary {
    return { status: response.status, headers: response.headers, body, url: response.url };
  }
}
