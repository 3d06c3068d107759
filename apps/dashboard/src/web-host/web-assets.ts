import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { INDEX_HTML, STYLE_CSS } from './page.js';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

export interface WebAsset {
  body: Buffer;
  contentType: string;
}

/**
 * The web app: its scripts as the workspace build compiled them from `src/web` (`dist/web`), its
 * page and stylesheet, read once into memory: a fixed set of files served by name, so no request
 * path ever reaches the file system. Without compiled scripts (running from sources) there is no
 * app, and `/` says how to build it.
 */
export class WebAssets {
  private readonly files = new Map<string, WebAsset>();

  constructor(readonly root: string) {
    if (!existsSync(join(root, 'main.js'))) return;
    for (const name of readdirSync(root)) {
      const type = TYPES[extname(name)];
      if (type) this.files.set(name, { body: readFileSync(join(root, name)), contentType: type });
    }
    this.files.set('index.html', {
      body: Buffer.from(INDEX_HTML),
      contentType: TYPES['.html'] ?? '',
    });
    this.files.set('style.css', { body: Buffer.from(STYLE_CSS), contentType: TYPES['.css'] ?? '' });
  }

  get(name: string): WebAsset | undefined {
    return this.files.get(name);
  }
}
