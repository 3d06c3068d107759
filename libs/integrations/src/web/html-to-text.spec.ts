import { decodeHtmlEntities } from '../markup/html-entities.js';
import { htmlToText } from './html-to-text.js';

const page = (body: string, head = '<title>Release notes &amp; more</title>'): string =>
  `<!doctype html><html><head>${head}<style>p{color:red}</style></head><body>${body}</body></html>`;

describe('htmlToText', () => {
  it('keeps what a reader sees and drops scripts, styles and navigation', () => {
    const { title, text } = htmlToText(
      page(
        '<nav><a href="/">Home</a> | <a href="/about">About</a></nav>' +
          '<script>window.secret = "x";</script><noscript>enable js</noscript>' +
          '<h1>Version 2.0</h1><p>First   paragraph\nwrapped.</p><p>Second.</p>',
      ),
    );
    expect(title).toBe('Release notes & more');
    expect(text).toBe('# Version 2.0\n\nFirst paragraph wrapped.\n\nSecond.');
  });

  it('prefers the main element, then a single article, over the page chrome', () => {
    const withMain = htmlToText(
      page('<header>Site</header><main><p>Body</p></main><footer>©</footer>'),
    );
    expect(withMain.text).toBe('Body');
    const withArticle = htmlToText(page('<div>Sidebar</div><article><p>Story</p></article>'));
    expect(withArticle.text).toBe('Story');
    const twoArticles = htmlToText(page('<article>A</article><article>B</article>'));
    expect(twoArticles.text).toBe('A\n\nB');
  });

  it('writes links as markdown with absolute URLs, and drops script and fragment links', () => {
    const { text } = htmlToText(
      page(
        '<p>See <a href="/docs/api?x=1&amp;y=2">the <b>API</b></a>, <a href="#top">top</a>, ' +
          '<a href="javascript:alert(1)">click</a> and <a href="mailto:a@b.example">mail</a>.</p>',
      ),
      'https://example.com/guide/index.html',
    );
    expect(text).toBe(
      'See [the **API**](https://example.com/docs/api?x=1&y=2), top, click and [mail](mailto:a@b.example).',
    );
  });

  it('renders nested lists, code blocks with their whitespace, tables and images', () => {
    const { text } = htmlToText(
      page(
        '<ul><li>one</li><li>two<ol><li>a</li><li>b</li></ol></li></ul>' +
          '<pre><code class="lang-ts">if (x) {\n    return  1;\n}</code></pre>' +
          '<p>Use <code>npm&nbsp;test</code> <em>now</em>.</p>' +
          '<table><tr><th>Key</th><th>Value</th></tr><tr><td>a</td><td>1</td></tr></table>' +
          '<img src="/x.png" alt="A diagram"><hr><p>end<br>line</p>',
      ),
    );
    expect(text).toBe(
      [
        '- one',
        '- two',
        '  1. a',
        '  2. b',
        '',
        '```',
        'if (x) {',
        '    return  1;',
        '}',
        '```',
        '',
        'Use `npm test` *now*.',
        '',
        '| Key | Value |',
        '| a | 1 |',
        '',
        '[image: A diagram]',
        '',
        '---',
        '',
        'end',
        'line',
      ].join('\n'),
    );
  });

  it('survives broken markup: unclosed tags, stray angle brackets, an unterminated script', () => {
    const { text } = htmlToText(
      '<p>a < b and <b>bold <i>both</b> tail<p>next<script>var x = "<p>"',
    );
    expect(text).toBe('a < b and **bold *both*** tail\n\nnext');
  });
});

describe('decodeHtmlEntities', () => {
  it('decodes numeric and common named references and keeps unknown ones', () => {
    expect(decodeHtmlEntities('&lt;a&gt; &#39;x&#x27; &mdash; &hellip; &bogus; &#0;')).toBe(
      "<a> 'x' — … &bogus; \uFFFD",
    );
  });
});
