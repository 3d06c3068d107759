import { describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebAssets } from './web-assets.js';

describe('WebAssets', () => {
  it('serves the built page, its hashed scripts and stylesheets by name, and nothing else', () => {
    const root = mkdtempSync(join(tmpdir(), 'caravel-web-spec-'));
    writeFileSync(join(root, 'index.html'), '<script src="/app/index-CcZtd9Sb.js"></script>');
    writeFileSync(join(root, 'index-CcZtd9Sb.js'), 'export {};');
    writeFileSync(join(root, 'index-BAUyopCw.css'), 'a {}');
    writeFileSync(join(root, 'notes.txt'), 'not served');
    mkdirSync(join(root, 'nested.js'));
    const assets = new WebAssets(root);
    expect(assets.get('index-CcZtd9Sb.js')).toMatchObject({
      contentType: 'text/javascript; charset=utf-8',
      immutable: true,
    });
    expect(assets.get('index.html')).toMatchObject({ immutable: false });
    expect(assets.get('index.html')?.body.toString()).toContain('/app/index-CcZtd9Sb.js');
    expect(assets.get('index-BAUyopCw.css')?.contentType).toBe('text/css; charset=utf-8');
    expect(assets.get('notes.txt')).toBeUndefined();
    expect(assets.get('nested.js')).toBeUndefined();
    expect(assets.get('../web-assets.spec.ts')).toBeUndefined();
  });

  it('has no app when it was not built (running from sources)', () => {
    const assets = new WebAssets(join(tmpdir(), 'caravel-web-spec-missing'));
    expect(assets.get('index.html')).toBeUndefined();
  });
});
