import { defineConfig } from 'vite';

// The console is served by the Atrium process itself (src/http/routes/web.ts); `npm run dev:web`
// (`vite web`) proxies the API to a local service on :8080.
export default defineConfig({
  base: '/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 400,
  },
  server: { proxy: { '/v1': 'http://127.0.0.1:8080' } },
});
