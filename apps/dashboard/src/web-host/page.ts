/**
 * The web app's one page and its stylesheet, kept as strings so the workspace build (which
 * compiles TypeScript only) ships them with the scripts it compiles from `src/web`.
 */
export const INDEX_HTML = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Caravel</title>
    <link rel="stylesheet" href="/app/style.css" />
    <script type="module" src="/app/main.js"></script>
  </head>
  <body>
    <a class="skip" href="#app">Skip to content</a>
    <header class="top">
      <a class="brand" href="#/threads">Caravel</a>
      <nav aria-label="main">
        <a href="#/threads">Threads</a>
        <a href="#/reviews">Reviews</a>
        <a href="#/ops">Ops</a>
        <a href="#/evals">Evals</a>
        <a href="#/settings">Settings</a>
        <a href="/api/docs">API</a>
      </nav>
      <div id="account"></div>
    </header>
    <main id="app" tabindex="-1"><p>Loading…</p></main>
  </body>
</html>
`;

export const STYLE_CSS = `:root { color-scheme: light dark; --fg: #1b1f24; --bg: #ffffff; --muted: #57606a; --line: #d0d7de;
  --accent: #0550ae; --add: #dafbe1; --del: #ffebe9; --hunk: #ddf4ff; font-family: system-ui, sans-serif; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --bg: #0d1117; --muted: #9198a1; --line: #30363d;
  --accent: #79c0ff; --add: #12361f; --del: #4a1a1d; --hunk: #0c2d4b; } }
body { margin: 0; color: var(--fg); background: var(--bg); line-height: 1.5; }
a { color: var(--accent); }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; }
.top { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
.top nav { display: flex; gap: 1rem; flex: 1; } .brand { font-weight: 700; text-decoration: none; }
main { max-width: 72rem; margin: 0 auto; padding: 1rem 1.2rem 3rem; }
main:focus, h1:focus { outline: none; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); }
caption { text-align: left; color: var(--muted); }
form { display: flex; flex-wrap: wrap; gap: .75rem; align-items: flex-end; margin: 1rem 0; }
label { display: flex; flex-direction: column; gap: .2rem; } label.check { flex-direction: row; align-items: center; }
label span { font-size: .85rem; color: var(--muted); }
input, select, textarea, button { font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: .35rem .6rem; }
textarea { width: min(48rem, 90vw); } fieldset { border: 1px solid var(--line); border-radius: 6px; }
button, .button { cursor: pointer; } .button { display: inline-block; padding: .5rem 1rem; border-radius: 6px; text-decoration: none; border: 1px solid var(--line); }
.primary { background: var(--accent); color: var(--bg); }
button.link { border: none; background: none; color: var(--accent); text-decoration: underline; padding: 0; }
.error { color: #cf222e; } @media (prefers-color-scheme: dark) { .error { color: #ff7b72; } }
.status { padding: 0 .4rem; border-radius: 1rem; border: 1px solid var(--line); font-size: .85rem; }
.events { list-style: none; padding: 0; } .event { border-left: 3px solid var(--line); padding: .25rem .9rem; margin: .6rem 0; }
.event h3 { margin: .2rem 0; font-size: 1rem; } .event time { color: var(--muted); font-size: .8rem; }
pre { overflow-x: auto; background: color-mix(in srgb, var(--line) 25%, transparent); padding: .5rem; border-radius: 6px; }
.diff span { display: block; white-space: pre; } .diff-add { background: var(--add); } .diff-del { background: var(--del); } .diff-hunk { background: var(--hunk); }
.note { color: var(--muted); }
nav a[aria-current="page"] { font-weight: 700; }
.severity { padding: 0 .4rem; border-radius: 1rem; border: 1px solid var(--line); font-size: .85rem; }
.severity-critical, .severity-high { border-color: #cf222e; } .severity-medium { border-color: #bf8700; }
details summary { cursor: pointer; }
.tiles { display: flex; flex-wrap: wrap; gap: 1rem; padding: 0; list-style: none; }
.tiles li { border: 1px solid var(--line); border-radius: 6px; padding: .5rem .9rem; min-width: 9rem; }
.tiles b { display: block; font-size: 1.4rem; }
.chart { max-width: 100%; height: auto; } .chart rect { fill: var(--accent); } .chart text { fill: var(--fg); font-size: 11px; }
`;
