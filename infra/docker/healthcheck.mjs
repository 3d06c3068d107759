// Container health probe without curl: `node healthcheck.mjs [path]` exits 0 when
// http://127.0.0.1:$PORT<path> answers 2xx within 3 s, 1 otherwise. Defaults to /health/live.
const path = process.argv[2] ?? '/health/live';
const port = process.env.PORT ?? '3000';

try {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, {
    signal: AbortSignal.timeout(3000),
  });
  process.exit(response.ok ? 0 : 1);
} catch {
  process.exit(1);
}
