import { describe, expect, it } from '@jest/globals';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebAssets } from './web-assets.js';

describe('WebAssets', () => {
  it('serves the compiled scripts, the page and its stylesheet by name, and nothing else', () => {
    const root = mkdtempSync(join(tmpdir(), 'caravel-web-spec-'));
    writeFileSync(join(root, 'main.js'), 'export {};');
    writeFileSync(join(root, 'notes.txt'), 'not served');
    const assets = new WebAssets(root);
    expect(assets.get('main.js')?.contentType).toBe('text/javascript; charset=utf-8');
    expect(assets.get('index.html')?.body.toString()).toContain('src="/app/main.js"');
    expect(assets.get('style.css')?.contentType).toBe('text/css; charset=utf-8');
    expect(assets.get('notes.txt')).toBeUndefined();
    expect(assets.get('../web-assets.spec.ts')).toBeUndefined();
  });

  it('has no app when the scripts were not compiled (running from sources)', () => {
    const assets = new WebAssets(join(tmpdir(), 'caravel-web-spec-missing'));
    expect(assets.get('index.html')).toBeUndefined();
  });
});
