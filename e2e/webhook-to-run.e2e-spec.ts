import { startEmbedded } from '@caravel/cli';
import type { ServiceHost } from '@caravel/platform';
import { createHmac, randomUUID } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { githubPayload } from '../apps/ingress/src/events/payload.factory.js';
import { eventually, HELLO_SCRIPT, type RunView } from './support/walking-skeleton.js';

const SECRET = 'e2e-webhook-secret';

describe('a signed GitHub webhook on the embedded platform', () => {
  let dataDir: string;
  let host: ServiceHost;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'caravel-e2e-webhook-'));
    await chmod(dataDir, 0o755);
    host = await startEmbedded(
      {
        LOG_LEVEL: 'warn',
        GITHUB_WEBHOOK_SECRET: SECRET,
        CARAVEL_MODEL: `scripted:${HELLO_SCRIPT}`,
      },
      { dataDir, port: 0, handleSignals: false },
    );
  });

  afterAll(async () => {
    await host.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  function deliver(body: string, delivery: string, signature?: string): Promise<Response> {
    return fetch(`${host.url}/webhooks/github`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'issue_comment',
        'x-github-delivery': delivery,
        ...(signature === undefined ? {} : { 'x-hub-signature-256': signature }),
      },
      body,
    });
  }

  // No GitHub App is configured, so the repository cannot be cloned: the run must fail before
  // any model call, saying what is missing — never "succeed" on an empty workspace.
  it('starts one run from a mention, which fails naming the missing App, and a redelivery starts nothing more', async () => {
    const body = JSON.stringify(githubPayload.issueComment('@caravel please say hello'));
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const delivery = randomUUID();
    const first = await deliver(body, delivery, signature);
    expect(first.status).toBe(200);
    const answer = (await first.json()) as { accepted: boolean; threadId: string };
    expect(answer.accepted).toBe(true);

    const run = await eventually(async () => {
      const response = await fetch(`${host.url}/api/threads/${answer.threadId}`);
      if (response.status !== 200) return undefined;
      const detail = (await response.json()) as { runs: (RunView & { summary: string })[] };
      return detail.runs.find((r) => r.status === 'failed' || r.status === 'completed');
    }, 90_000);
    expect(run.status).toBe('failed');
    expect(run.exitStatus).not.toMatch(/^submitted/);
    expect(run.summary).toMatch(/GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY/);

    const again = await deliver(body, delivery, signature);
    expect(await again.json()).toMatchObject({ accepted: false, reason: 'duplicate' });
    const detail = (await (await fetch(`${host.url}/api/threads/${answer.threadId}`)).json()) as {
      runs: RunView[];
    };
    expect(detail.runs).toHaveLength(1);
  });

  it('refuses an unsigned or forged delivery with a coded answer and no stack', async () => {
    const body = JSON.stringify(githubPayload.issueComment('@caravel please say hello'));
    for (const signature of [undefined, 'sha256=00']) {
      const response = await deliver(body, randomUUID(), signature);
      expect(response.status).toBe(401);
      const text = await response.text();
      expect(JSON.parse(text)).toMatchObject({ error: { code: 'SIGNATURE_INVALID' } });
      expect(text).not.toMatch(/\bat \S+:\d+:\d+/);
    }
  });
});
