import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

/** Vite names a built script or stylesheet by its content's hash (`index-CcZtd9Sb.js`). */
const HASHED = /-[\w-]{8}\.(js|css)$/;

export interface WebAsset {
  body: Buffer;
  contentType: string;
  /** Named by its content's hash: a browser may keep it for good. */
  immutable: boolean;
}

/**
 * The web app as Vite built it (`dist/web`: `index.html` and its hashed scripts and stylesheets,
 * tools/scripts/build-web.mjs), read once into memory: a fixed set of files served by name, so no
 * request path ever reaches the file system. Without a built `index.html` (running from sources)
 * there is no app, and `/` says how to build it.
 */
export class WebAssets {
  private readonly files = new Map<string, WebAsset>();

  constructor(readonly root: string) {
    if (!existsSync(join(root, 'index.html'))) return;
    for (const entry of readdirSync(root, { withFileTypes: true })) {
      const type = TYPES[extname(entry.name)];
      if (!entry.isFile() || !type) continue;
      this.files.set(entry.name, {
        body: readFileSync(join(root, entry.name)),
        contentType: type,
        immutable: HASHED.test(entry.name),
      });
    }
  }

  get(name: string): WebAsset | undefined {
    return this.files.get(name);
  }
}
