import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxErrorReason, type ExecResult, type RpcSandbox } from '@caravel/sandbox';
import {
  brokerConfig,
  BrokerUnderTest,
  busTargets,
  dropNamespace,
  waitUntil,
} from './testing/broker-harness.js';

const namespace = `sbs${randomBytes(4).toString('hex')}`;
const targets = await busTargets(namespace);

afterAll(async () => {
  if (!targets[1]?.gate.missing) await dropNamespace(namespace);
});

/** The broker's default `outputLimitBytes` for a sandbox. */
const OUTPUT_LIMIT = 100_000;

/** Runs a command with an output listener, noting which pieces came before the result. */
async function streamed(sandbox: RpcSandbox, command: string) {
  const pieces: string[] = [];
  const result: ExecResult = await sandbox.exec(command, {
    timeoutMs: 60_000,
    onOutput: (text) => pieces.push(text),
  });
  return { result, pieces, before: pieces.length };
}

for (const target of targets) {
  target.gate.describe(`streamed exec over the sandbox RPC [${target.label}]`, () => {
    let rootDir: string;
    let broker: BrokerUnderTest;
    const config = () => brokerConfig({ SANDBOX_PROVIDER: 'local', SANDBOX_ROOT: rootDir });
    const acquire = (client = broker.client) =>
      client.acquire({ threadId: randomUUID(), branch: 'caravel/stream' });

    beforeAll(async () => {
      rootDir = await mkdtemp(join(tmpdir(), 'caravel-broker-stream-'));
      broker = await BrokerUnderTest.start(target, config);
    });

    afterAll(async () => {
      await broker?.stop();
      await rm(rootDir, { recursive: true, force: true });
    });

    it('delivers a long command’s output in several ordered pieces before its result', async () => {
      const sandbox = await acquire();
      const lines = Array.from({ length: 6 }, (_, i) => `line ${i + 1}\n`).join('');
      const run = await streamed(
        sandbox,
        'for i in 1 2 3 4 5 6; do echo "line $i"; sleep 0.5; done',
      );
      expect(run.result).toMatchObject({ exitCode: 0, output: lines, truncated: false });
      expect(run.before).toBe(run.pieces.length);
      expect(run.pieces.length).toBeGreaterThanOrEqual(3);
      expect(run.pieces.join('')).toBe(lines);
      expect(broker.service.streamsInFlight).toBe(0);
      expect(broker.client.streams.size).toBe(0);
    });

    it('streams no more than the output limit, and the result stays capped and shaped', async () => {
      const sandbox = await acquire();
      const run = await streamed(sandbox, "head -c 5000000 /dev/zero | tr '\\0' s; echo; echo end");
      expect(run.result).toMatchObject({ exitCode: 0, truncated: true, outputBytes: 5_000_005 });
      // Booleans, not the texts: a failure would otherwise print 100 kB of "s".
      const elided = /bytes of output elided \.\.\.\]\ns*\nend\n$/.test(run.result.output);
      expect(elided).toBe(true);
      const text = run.pieces.join('');
      expect(text.slice(0, OUTPUT_LIMIT) === 's'.repeat(OUTPUT_LIMIT)).toBe(true);
      expect(text.slice(OUTPUT_LIMIT)).toContain(`streaming stopped after ${OUTPUT_LIMIT} bytes`);
      expect(text.length).toBeLessThan(OUTPUT_LIMIT + 200);
      expect(run.before).toBe(run.pieces.length);
    });

    it('streams only to callers that ask, and leaves plain exec unchanged', async () => {
      const sandbox = await acquire();
      expect(await sandbox.exec('echo plain')).toMatchObject({ exitCode: 0, output: 'plain\n' });
      expect(broker.service.streamsInFlight).toBe(0);
    });

    it('stops streaming to a caller that goes away, abandons its command, holds nothing for it', async () => {
      const gone = await broker.newClient();
      const sandbox = await acquire(gone.client);
      const pieces: string[] = [];
      const running = sandbox
        .exec(
          'for i in $(seq 1 300); do echo "tick $i"; sleep 0.1; done; echo finished > done.txt',
          {
            timeoutMs: 120_000,
            onOutput: (text) => pieces.push(text),
          },
        )
        .then(
          () => 'finished',
          (error: unknown) => sandboxErrorReason(error) ?? 'failed',
        );
      await waitUntil('a first piece', () => pieces.length > 0);
      expect(broker.service.streamsInFlight).toBe(1);

      await gone.close();
      await waitUntil('the broker to drop the stream', () => broker.service.streamsInFlight === 0);
      expect(await running).not.toBe('finished');
      expect(gone.client.streams.size).toBe(0);

      const again = await broker.client.acquire({
        threadId: sandbox.handle.threadId,
        branch: 'caravel/stream',
      });
      expect(again.handle.outcome).toBe('reconnected');
      expect((await again.exec('test -e done.txt && echo ran || echo abandoned')).output).toBe(
        'abandoned\n',
      );
    });
  });
}
