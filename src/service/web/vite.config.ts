import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import { clientVersionOf } from './build/client-version.ts';
import { webViteConfig } from './build/web-config.ts';

// For `vite --config src/service/web/vite.config.ts` (dev server) and the same with `build`. The
// npm script `build:web` goes through build/main.ts instead, which also reads dist/release.env and
// replaces the output folder only when the build is complete.
const { configFile: _, ...config } = webViteConfig(
  clientVersionOf(process.env['SERVICE_CLIENT_VERSION']),
  resolve('dist/web'),
);

export default defineConfig({
  ...config,
  server: {
    host: '127.0.0.1',
    // In development the API runs beside Vite; /api stays same-origin, as behind the static server.
    proxy: { '/api': process.env['API_URL'] ?? 'http://127.0.0.1:8080' },
  },
});
