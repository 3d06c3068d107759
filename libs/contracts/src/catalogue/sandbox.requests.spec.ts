import {
  pullRequestHeadRefOf,
  SANDBOX_REQUESTS,
  SandboxAcquire,
  SandboxCallerAlive,
  SandboxWrite,
} from './sandbox.requests.js';
import { SANDBOX_OUTPUT_PIECE_MAX_CHARS, SandboxExecOutput } from './sandbox-stream.requests.js';

const threadId = '5f2b7c1e-8d44-5a36-9a0e-2f6a1b3c4d5e';

describe('sandbox requests', () => {
  it('gives every operation its own subject under sandbox.<threadId>', () => {
    const subjects = SANDBOX_REQUESTS.map((definition) => definition.subjectFor(threadId));
    expect(new Set(subjects).size).toBe(SANDBOX_REQUESTS.length);
    for (const subject of subjects) expect(subject).toMatch(/^sandbox\.[0-9a-f-]{36}\.[a-z-]+$/);
  });

  it('keeps the caller-liveness probe off the broker subjects', () => {
    expect(SandboxCallerAlive.subjectFor(threadId)).toBe(`sandbox-caller.${threadId}.alive`);
    expect(SANDBOX_REQUESTS.map((d) => d.pattern)).not.toContain(SandboxCallerAlive.pattern);
  });

  it('defaults an acquire to an agent thread and refuses a bad branch', () => {
    expect(SandboxAcquire.parseRequest({ threadId, branch: 'caravel/x' })).toMatchObject({
      purpose: 'agent',
    });
    expect(() => SandboxAcquire.parseRequest({ threadId, branch: '' })).toThrow(/branch/);
  });

  it("starts an acquire only at a pull request's head ref, never at another ref or a refspec", () => {
    const acquire = (startRef: string) =>
      SandboxAcquire.parseRequest({ threadId, branch: 'caravel/x', startRef });
    expect(acquire('refs/pull/42/head')).toMatchObject({ startRef: 'refs/pull/42/head' });
    for (const bad of [
      'refs/pull/42/merge',
      'refs/heads/main',
      '+refs/pull/42/head:refs/heads/main',
      'refs/pull/0/head',
      'refs/pull/-1/head',
      'refs/pull/42/head\n',
      'refs/pull/4 2/head',
      '--upload-pack=evil',
      'refs/pull/42/head/../../heads/main',
    ]) {
      expect(() => acquire(bad)).toThrow(/startRef/);
    }
    expect(pullRequestHeadRefOf(7)).toBe('refs/pull/7/head');
    expect(() => pullRequestHeadRefOf(1.5)).toThrow();
  });

  it('writes text unless told the content is base64', () => {
    expect(SandboxWrite.parseRequest({ threadId, path: 'a', content: 'x' }).encoding).toBe('utf8');
  });

  it('sends streamed output to the caller, not the broker, and bounds each piece', () => {
    expect(SandboxExecOutput.subjectFor(threadId)).toBe(`sandbox-caller.${threadId}.output`);
    expect(SANDBOX_REQUESTS.map((d) => d.pattern)).not.toContain(SandboxExecOutput.pattern);
    const piece = { callerId: threadId, streamId: threadId, seq: 0, text: 'x' };
    expect(SandboxExecOutput.parseRequest(piece)).toEqual(piece);
    const huge = { ...piece, text: 'x'.repeat(SANDBOX_OUTPUT_PIECE_MAX_CHARS + 1) };
    expect(() => SandboxExecOutput.parseRequest(huge)).toThrow(/text/);
    expect(() => SandboxExecOutput.parseRequest({ ...piece, seq: -1 })).toThrow(/seq/);
  });
});
