import { decodeHtmlEntities } from './html-entities.js';
import {
  parseInline,
  parseMarkdownBlocks,
  renderMarkdown,
  type MarkdownBlock,
} from './markdown-blocks.js';

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

function inlineXml(text: string): string {
  return parseInline(text)
    .map((span) => {
      let out = escapeXml(span.text);
      if (span.code) return `<code>${out}</code>`;
      if (span.em) out = `<em>${out}</em>`;
      if (span.strong) out = `<strong>${out}</strong>`;
      if (span.href) out = `<a href="${escapeXml(span.href)}">${out}</a>`;
      return out;
    })
    .join('');
}

function blockXml(block: MarkdownBlock): string {
  switch (block.type) {
    case 'heading':
      return `<h${block.level}>${inlineXml(block.text)}</h${block.level}>`;
    case 'paragraph':
      return `<p>${inlineXml(block.text).replace(/\n/g, '<br />')}</p>`;
    case 'list': {
      const tag = block.ordered ? 'ol' : 'ul';
      return `<${tag}>${block.items.map((item) => `<li>${inlineXml(item)}</li>`).join('')}</${tag}>`;
    }
    case 'code': {
      const language = block.language
        ? `<ac:parameter ac:name="language">${escapeXml(block.language)}</ac:parameter>`
        : '';
      const body = block.text.replace(/]]>/g, ']]]]><![CDATA[>');
      return `<ac:structured-macro ac:name="code">${language}<ac:plain-text-body><![CDATA[${body}]]></ac:plain-text-body></ac:structured-macro>`;
    }
    case 'rule':
      return '<hr />';
  }
}

/** Markdown → Confluence storage format (XHTML; code blocks as the code macro). */
export function markdownToStorage(markdown: string): string {
  return parseMarkdownBlocks(markdown).map(blockXml).join('');
}

function inlineMarkdown(xml: string): string {
  const text = xml
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<(strong|b)>([\s\S]*?)<\/\1>/gi, '**$2**')
    .replace(/<(em|i)>([\s\S]*?)<\/\1>/gi, '*$2*')
    .replace(/<code>([\s\S]*?)<\/code>/gi, '`$1`')
    .replace(/<a\s[^>]*href="([^"]*)"[^>]*>([\s\S]*?)<\/a>/gi, '[$2]($1)')
    .replace(/<[^>]+>/g, '');
  return decodeHtmlEntities(text).trim();
}

const BLOCK = new RegExp(
  [
    '<h([1-6])[^>]*>([\\s\\S]*?)<\\/h\\1>',
    '<(ul|ol)[^>]*>([\\s\\S]*?)<\\/\\3>',
    '<ac:structured-macro[^>]*ac:name="code"[^>]*>([\\s\\S]*?)<\\/ac:structured-macro>',
    '<hr\\s*\\/?>',
    '<p[^>]*>([\\s\\S]*?)<\\/p>',
  ].join('|'),
  'gi',
);

function codeBlock(macro: string): MarkdownBlock {
  const language =
    /<ac:parameter ac:name="language">([^<]*)<\/ac:parameter>/.exec(macro)?.[1] ?? '';
  const cdata = [...macro.matchAll(/<!\[CDATA\[([\s\S]*?)\]\]>/g)].map((m) => m[1] ?? '').join('');
  return { type: 'code', language, text: cdata };
}

/** Confluence storage format → markdown (headings, paragraphs, lists, code macro, marks). */
export function storageToMarkdown(storage: string): string {
  const blocks: MarkdownBlock[] = [];
  for (const match of storage.matchAll(BLOCK)) {
    const [whole, level, heading, listTag, listBody, macro, paragraph] = match;
    if (level !== undefined)
      blocks.push({ type: 'heading', level: Number(level), text: inlineMarkdown(heading ?? '') });
    else if (listTag !== undefined) {
      const items = [...(listBody ?? '').matchAll(/<li[^>]*>([\s\S]*?)<\/li>/gi)].map((m) =>
        inlineMarkdown(m[1] ?? ''),
      );
      blocks.push({ type: 'list', ordered: listTag.toLowerCase() === 'ol', items });
    } else if (macro !== undefined) blocks.push(codeBlock(whole));
    else if (paragraph !== undefined)
      blocks.push({ type: 'paragraph', text: inlineMarkdown(paragraph) });
    else blocks.push({ type: 'rule' });
  }
  if (blocks.length === 0 && storage.trim() !== '') return inlineMarkdown(storage);
  return renderMarkdown(blocks.filter((b) => b.type !== 'paragraph' || b.text !== ''));
}
