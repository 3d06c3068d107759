/**
 * The help texts of `caravel`. Plain strings only: `caravel`, `caravel help` and a usage error
 * must print without loading NestJS, LangChain or PGlite.
 */

/** One command's lines in the usage, and its name. */
export const COMMAND_USAGE = {
  start: `  start                      run every service in this process (embedded bus + PGlite)
    --data-dir D             where data lives (default ./.caravel, or CARAVEL_DATA_DIR)
    --port N                 HTTP port (default 3000, or PORT)`,
  run: `  run --repo PATH "TASK"     run one task end to end on the embedded platform, show each step,
                             then the branch and its diff
    --model REF              e.g. anthropic:claude-sonnet-4-5, scripted:examples/fix-sample.script.yaml
                             (default CARAVEL_MODEL)
    --data-dir D             keep the run's data here (default: a temporary directory, removed
                             at the end)
    --tools-dir DIR          SWE-agent tool bundles (a folder of them or a SWE-agent checkout),
    --bundle NAME            installed read-only in the run's sandbox (bwrap), in order
                             (repeatable); their commands are the agent's through execute`,
  trajectory: `  trajectory export THREAD   write a run's SWE-agent .traj from the recorded events
    --run ID                 that run (default: the thread's last finished run)
    --out FILE               where (default THREAD.traj); --data-dir D or --database-url URL`,
  replay: `  replay THREAD|FILE.traj    re-run the recorded tool calls in a fresh sandbox and compare the
                             final patch with the recorded submission (exit 1 when it differs)
    --repo PATH, --base SHA  the starting point (default: the recorded clone URL and commit)
    --sandbox bwrap|local    (default bwrap); --data-dir D or --database-url URL for a thread
    --tools-dir DIR          SWE-agent tool bundles: a folder of them or a SWE-agent checkout,
                             installed in the sandbox with the repository at /<repo> (bwrap)
    --bundle NAME            a bundle to install (repeatable; default: replay_config's bundles)`,
  swegen: `  swegen create|validate|farm|analyze
                             merged PRs to Harbor tasks: create one, validate it (NOP/Oracle),
                             farm a repository (publishing optional), analyze with agent trials
                             (caravel swegen help)`,
  attach: `  attach THREAD              follow a thread live and take part: a line is a message for the
                             agent, !CMD runs in the thread's sandbox between its steps
    --url URL                the dashboard (default http://127.0.0.1:3000)
    --as NAME                who you are in the thread (default $USER)
    --token T                the dashboard's token (default DASHBOARD_TOKEN)`,
  'dead-letters': `  dead-letters [list]        the messages the platform gave up on (dead letters), oldest first
  dead-letters replay [ID…]  hand them back to the consumers that gave up on them, once fixed
    --consumer C             only this durable consumer's; --since T, --until T (ISO 8601)
    --all                    replay every dead letter (replay needs IDs, a filter or --all)
    --url URL, --token T     the dashboard (default http://127.0.0.1:3000, DASHBOARD_TOKEN)`,
  connect: `  connect reseal             seal every Confluence Connect tenant's shared secret under
                             CONNECT_SECRET_KEYS (the ingress's own keyring), opening those
                             sealed before the upgrade with CARAVEL_TOKEN_KEYS; once per upgrade,
                             a second run changes nothing (nothing is changed when one fails)
    --database-url URL       (default CARAVEL_DATABASE_URL, DATABASE_URL); --data-dir D the
                             embedded one (default CARAVEL_DATA_DIR, ./.caravel; stop caravel
                             start first)`,
  db: `  db migrate                 apply the pending migrations (with the owner's URL) and say which,
                             and set up the agent's checkpointer tables (PostgreSQL); what the
                             services skip with DATABASE_MIGRATE=false
  db grants                  print the SQL that gives each service a role of its own
                             (caravel_ingress, caravel_dispatch, …) with only its tables:
                             SELECT/INSERT/UPDATE/DELETE, no DDL; idempotent, no passwords
    --apply                  run it instead (PostgreSQL, with the owner's URL, after db migrate)
    --service S              only this service's role (repeatable)
    --database-url URL       (default CARAVEL_DATABASE_URL, DATABASE_URL); --data-dir D the
                             embedded one (default CARAVEL_DATA_DIR, ./.caravel)`,
  'github-app': `  github-app manifest        print the manifest of Caravel's GitHub App (its permissions, events,
                             webhook and sign-in URLs), as GitHub's manifest flow takes it
  github-app create          register that App on GitHub (a page on 127.0.0.1 posts the manifest;
                             you click Create GitHub App) and write its five credentials to a new
                             env file (mode 0600; an existing file is never overwritten)
    --url URL                Caravel's public URL: the ingress's (webhooks), the embedded host's
    --dashboard-url URL      the dashboard's, when it is not --url's (Sign in with GitHub)
    --name N                 the App's name (default Caravel <host>; editable on GitHub)
    --workflows              also ask for Workflows: write, so runs may change .github/workflows/
                             (off by default: an agent that can edit a workflow can make CI run
                             code with the repository's secrets)
    --org ORG                create: register it on this organization (default: your account)
    --out FILE               create: where (default caravel-github-app.env)
    --port N                 create: the loopback page's port (default any free one)`,
  analyze: `  analyze OWNER/REPO         ask the analyzer to learn the repository's review style from its
                             merged pull requests' review comments (the reviewer then uses it)
    --url URL, --token T     the dashboard (default http://127.0.0.1:3000, DASHBOARD_TOKEN)`,
  'fake-model': `  fake-model                 a loopback OpenAI-compatible model server that answers from a
                             script, to try Caravel end to end without a key
    --port N                 (default 8089); --script FILE (a model script, as scripted:
                             takes; default: look at the repository, then submit)`,
  eval: `  eval run SUITE --config C  run Caravel's agent on every Harbor task of SUITE (N attempts each,
                             graded by the task's tests); resumable; writes caravel-eval.json,
                             preds.json and results.json (exit 130 when stopped: run it again)
    --config NAME|FILE.json  the configuration ({"name","model","env"}); --model REF overrides
                             its model (default CARAVEL_MODEL)
    --attempts N             per task (default 1); --concurrency N attempts at once (default 2)
    --out DIR                the run's folder (default evals/SUITE--CONFIG)
    --repo-path P            the tasks' repository (default: the swegen cache in --state-dir,
                             default .swegen); --data-dir D keeps the runs' platform data
    --database-url URL       also record the run and its attempts there (default
                             CARAVEL_DATABASE_URL, DATABASE_URL, else CARAVEL_DATA_DIR's database)
  eval compare BASE CANDIDATE compare two runs of an eval suite task by task: flips, resolve
                             rates with 95% intervals, cost and calls, and the gate's verdict
                             (exit 1 when the candidate is refused); each a run's folder or file,
                             or a run id recorded in the database (--database-url as above); two
                             review-eval runs are compared on precision, recall and F1 by case
    --out DIR                also write comparison.json and chart.svg there
    --max-drop P, --alpha A  the gate: refuse a drop over P points (default 5) significant at A
                             (one-sided sign test, default 0.05)
  eval gate --suite SUITE --config C  run a proposed configuration on SUITE and compare it with
                             the current configuration's last recorded run; the proposal and the
                             verdict are kept in the database (exit 1 when refused)
    --proposal ID            a pending proposal (recorded on the dashboard) instead of --config
    --against RUN            the run to compare with (default: the current configuration's last)
                             the options of eval run and the gate's --max-drop and --alpha
  eval gate-style --proposal ID --set SET  measure a review style's edit (proposed on the
                             dashboard) with the reviewer eval on SET against the current style's
                             run; accepted, it becomes the repository's style (exit 1 when refused)
    --model REF              the reviewer model (default REVIEWER_MODEL, else CARAVEL_MODEL)
    --against RUN            the reviewer run to compare with (default: the current style's)
    --sandbox bwrap|local, --concurrency N, --out DIR, --max-drop P, --alpha A
  eval scheduler             a team deployment's nightly eval suites (NATS_URL, DATABASE_URL):
                             runs each due schedule's night as caravel start does embedded; health
                             and metrics on PORT (default 3008); one sweeps at a time
    --once                   sweep once and exit (cron): 0, or 1 when a night failed`,
  'review-eval': `  review-eval SET            score Caravel's reviewer on a labelled set of pull requests (known
                             defects by file and lines; SET a folder, its JSON or an http(s) URL):
                             precision, recall and F1 per case and overall; writes
                             review-eval.json (exit 1 when a case failed)
    --model REF              the reviewer's model (default REVIEWER_MODEL, else CARAVEL_MODEL)
    --judge REF              also ask this model whether each finding placed on a defect is it
    --tolerance N            lines a finding may be off by (default 0); --min-severity S scores
                             findings from S up (low, medium, high, critical; default low)
    --concurrency N          cases at once (default 2); --sandbox bwrap|local (default bwrap)
    --out DIR                where (default evals/review-SET--MODEL)
    --config NAME            the name it is recorded and compared under (default the model)
    --database-url URL       also record the run and each case there (default as for eval run);
                             eval compare then takes its run id`,
  help: `  help [COMMAND]             show this text (or one command's)`,
} as const;

/** A command `caravel` knows. */
export type CommandName = keyof typeof COMMAND_USAGE;

/** Whether `name` is a command `caravel` knows. */
export function isCommandName(name: string): name is CommandName {
  return Object.hasOwn(COMMAND_USAGE, name);
}

/** The whole usage text, printed by `caravel`, `caravel -h`, `caravel help`. */
export const USAGE = `Usage: caravel <command> [options]

Commands:
${Object.values(COMMAND_USAGE).join('\n')}

caravel <command> --help shows one command. \`npm start\` runs \`caravel start\`;
\`npm start -- <command> …\` runs any other.
`;

/** One command's usage. */
export function commandUsage(name: CommandName): string {
  return `Usage: caravel ${name} …\n\n${COMMAND_USAGE[name]}\n`;
}

/**
 * One subcommand's part of a command's usage, for `caravel <command> <sub> --help`: its entry
 * (the line naming it and its option lines), the shared entries that apply to it (`shared`: the
 * entry's first word → the subcommands it serves, e.g. swegen's publishing options), then the
 * notes after the entries. Undefined when the usage has no entry for `sub`.
 */
export function subcommandUsage(
  usage: string,
  command: string,
  sub: string,
  shared: Readonly<Record<string, readonly string[]>> = {},
): string | undefined {
  const lines = usage.split('\n');
  const first = lines.findIndex((line, k) => k > 0 && line.startsWith('  '));
  const blank = lines.findIndex((line, k) => k > first && line.trim() === '');
  const end = blank === -1 ? lines.length : blank;
  const entries: string[][] = [];
  for (const line of lines.slice(first, end)) {
    if (/^ {2}\S/.test(line) || entries.length === 0) entries.push([line]);
    else entries.at(-1)?.push(line);
  }
  const nameOf = (entry: string[]) => entry[0]?.trim().split(/\s+/)[0] ?? '';
  const own = entries.filter((entry) => nameOf(entry) === sub);
  if (own.length === 0) return undefined;
  const serving = entries.filter((entry) => shared[nameOf(entry)]?.includes(sub) === true);
  const notes = blank === -1 ? [] : lines.slice(blank);
  return [
    `Usage: caravel ${command} ${sub} [options]`,
    '',
    ...[...own, ...serving].flat(),
    ...notes,
  ]
    .join('\n')
    .replace(/\n*$/, '\n');
}
