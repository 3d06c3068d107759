// The dashboard's web app (React + Mantine + recharts), built by tools/scripts/build-web.mjs into
// the folder the dashboard serves at /app/ (flat: `index.html` beside hashed `index-<hash>.js` and
// `.css`), so web-assets.ts can serve it by name.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('./src/web/', import.meta.url)),
  base: '/app/',
  plugins: [react()],
  logLevel: 'warn',
  build: {
    assetsDir: '',
    emptyOutDir: true,
    // One app, served from memory: a single script and stylesheet are the point, not a warning.
    chunkSizeWarningLimit: 2048,
  },
});
