// The dashboard's web app (React + Mantine + recharts), built by tools/scripts/build-web.mjs into
// the folder the dashboard serves at /app/ (flat: `index.html` beside the hashed entry script, its
// lazily loaded page and library chunks, and `.css`), so web-assets.ts can serve them by name.
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
    chunkSizeWarningLimit: 2048,
    rollupOptions: {
      output: {
        // React and Mantine (every page's) in chunks of their own, cached across releases of
        // the app's code; the pages are split by React.lazy in app.tsx, so recharts and the
        // highlighter come with the pages that use them, not with the first one.
        manualChunks(id) {
          if (!id.includes('node_modules')) return undefined;
          if (/node_modules\/(react|react-dom|scheduler)\//.test(id)) return 'react';
          if (id.includes('node_modules/@mantine/')) return 'mantine';
          return undefined;
        },
      },
    },
  },
});
