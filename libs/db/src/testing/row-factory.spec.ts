import { describe, expect, it } from '@jest/globals';
import { FACTORY_TIME, factory } from './row-factory.js';

describe('row factory', () => {
  it('gives each row its own random id', () => {
    expect(factory.thread().id).not.toBe(factory.thread().id);
    expect(factory.run().id).not.toBe(factory.run().id);
    expect(factory.queuedRun().runId).not.toBe(factory.queuedRun().runId);
  });

  it('keeps the columns a test names and defaults the rest', () => {
    const run = factory.run({ threadId: 't1', status: 'running' });
    expect(run).toMatchObject({ threadId: 't1', status: 'running', startedAt: null });
    expect(run.createdAt).toBe(FACTORY_TIME);
  });

  it('builds a row for each repository a spec fakes', () => {
    expect(factory.thread({ status: 'running' }).status).toBe('running');
    expect(factory.threadMessage({ text: 'hi' })).toMatchObject({ text: 'hi', trusted: true });
    expect(factory.userProfile({ model: 'm' })).toMatchObject({
      model: 'm',
      reasoningEffort: null,
    });
  });
});
