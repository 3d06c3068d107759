import { adfToMarkdown, markdownToAdf } from './adf.js';
import { markdownToStorage, storageToMarkdown } from './storage-format.js';

const SAMPLE = [
  '## Plan',
  'Fix the **parser** in `src/parse.ts`, see [the issue](https://example.test/1).',
  '- reproduce\n- fix *carefully*',
  '1. test\n2. ship',
  '```ts\nconst a = 1 < 2;\n```',
  '---',
].join('\n\n');

describe('markdown ↔ ADF (Jira)', () => {
  it('converts headings, marks, links, lists and code to ADF nodes', () => {
    const doc = markdownToAdf(SAMPLE);
    expect(doc).toMatchObject({ type: 'doc', version: 1 });
    expect(doc.content?.map((n) => n.type)).toEqual([
      'heading',
      'paragraph',
      'bulletList',
      'orderedList',
      'codeBlock',
      'rule',
    ]);
    expect(doc.content?.[1]?.content).toEqual([
      { type: 'text', text: 'Fix the ' },
      { type: 'text', text: 'parser', marks: [{ type: 'strong' }] },
      { type: 'text', text: ' in ' },
      { type: 'text', text: 'src/parse.ts', marks: [{ type: 'code' }] },
      { type: 'text', text: ', see ' },
      {
        type: 'text',
        text: 'the issue',
        marks: [{ type: 'link', attrs: { href: 'https://example.test/1' } }],
      },
      { type: 'text', text: '.' },
    ]);
  });

  it('round-trips the supported subset', () => {
    expect(adfToMarkdown(markdownToAdf(SAMPLE))).toBe(SAMPLE);
  });

  it('keeps the text of nodes it does not know, and reads an absent description as empty', () => {
    const doc = {
      type: 'doc',
      content: [
        {
          type: 'panel',
          content: [{ type: 'paragraph', content: [{ type: 'text', text: 'note' }] }],
        },
      ],
    };
    expect(adfToMarkdown(doc)).toBe('note');
    expect(adfToMarkdown(null)).toBe('');
  });
});

describe('markdown ↔ storage format (Confluence)', () => {
  it('writes XHTML with escaped text and the code macro', () => {
    const xml = markdownToStorage(SAMPLE);
    expect(xml).toContain('<h2>Plan</h2>');
    expect(xml).toContain('<strong>parser</strong>');
    expect(xml).toContain('<a href="https://example.test/1">the issue</a>');
    expect(xml).toContain('<ul><li>reproduce</li><li>fix <em>carefully</em></li></ul>');
    expect(xml).toContain('<ac:parameter ac:name="language">ts</ac:parameter>');
    expect(xml).toContain('<![CDATA[const a = 1 < 2;]]>');
  });

  it('round-trips the supported subset', () => {
    expect(storageToMarkdown(markdownToStorage(SAMPLE))).toBe(SAMPLE);
  });

  it('reads entities, line breaks and plain text bodies', () => {
    expect(storageToMarkdown('<p>a &amp; b<br />c &lt;d&gt;</p>')).toBe('a & b\nc <d>');
    expect(storageToMarkdown('just text')).toBe('just text');
  });
});
