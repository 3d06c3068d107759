import { startFakeAnthropic, startFakeOpenAi } from './fake-llm-server.js';

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    // A connection per request: a restarted server does not know the old ones.
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json() };
}

describe('fake LLM servers', () => {
  it('answers an unscripted request with a 500 in the provider error format', async () => {
    const fake = await startFakeAnthropic();
    try {
      const { status, json } = await post(`${fake.baseUrl}/v1/messages`, { model: 'm' });
      expect(status).toBe(500);
      expect(json).toEqual({
        type: 'error',
        error: { type: 'api_error', message: 'fake LLM: no scripted reply left' },
      });
      expect(fake.requests).toHaveLength(1);
    } finally {
      await fake.close();
    }
  });

  it('records the request and renders OpenAI tool calls with deterministic ids', async () => {
    const fake = await startFakeOpenAi();
    try {
      fake.enqueue({ toolCalls: [{ name: 'execute', args: { command: 'ls' } }] });
      const { status, json } = await post(`${fake.baseUrl}/chat/completions`, { model: 'gpt-5' });
      expect(status).toBe(200);
      expect(json).toMatchObject({
        choices: [
          {
            finish_reason: 'tool_calls',
            message: {
              tool_calls: [
                {
                  id: 'call_fake_1_1',
                  function: { name: 'execute', arguments: '{"command":"ls"}' },
                },
              ],
            },
          },
        ],
      });
      expect(fake.requests[0]).toMatchObject({
        path: '/v1/chat/completions',
        body: { model: 'gpt-5' },
      });
      expect(fake.pending).toBe(0);
    } finally {
      await fake.close();
    }
  });

  it('answers an unknown route with a 404 without consuming a reply', async () => {
    const fake = await startFakeOpenAi();
    try {
      fake.enqueue({ text: 'kept' });
      const { status } = await post(`${fake.baseUrl}/responses`, {});
      expect(status).toBe(404);
      expect(fake.pending).toBe(1);
    } finally {
      await fake.close();
    }
  });

  it('answers from the responder once the queue is empty, from what the request holds', async () => {
    const fake = await startFakeOpenAi();
    try {
      fake.enqueue({ text: 'queued first' });
      fake.respondWith((request) => ({ text: `echo ${String(request.body?.['model'])}` }));
      const first = await post(`${fake.baseUrl}/chat/completions`, { model: 'a' });
      const second = await post(`${fake.baseUrl}/chat/completions`, { model: 'b' });

      expect(first.json).toMatchObject({ choices: [{ message: { content: 'queued first' } }] });
      expect(second.json).toMatchObject({ choices: [{ message: { content: 'echo b' } }] });
    } finally {
      await fake.close();
    }
  });

  it('numbers its ids from 1 again after a restart, on the same address', async () => {
    const fake = await startFakeOpenAi();
    try {
      const call = { toolCalls: [{ name: 'execute', args: { command: 'ls' } }] };
      fake.enqueue(call, call, call);
      const ids = async () => {
        const { json } = await post(`${fake.baseUrl}/chat/completions`, { model: 'm' });
        const body = json as {
          id: string;
          choices: { message: { tool_calls: { id: string }[] } }[];
        };
        return [body.id, body.choices[0]?.message.tool_calls[0]?.id];
      };
      const before = [await ids(), await ids()];
      const url = fake.baseUrl;
      await fake.restart();

      expect(fake.baseUrl).toBe(url);
      expect(await ids()).toEqual(before[0]);
      expect(before[0]).toEqual(['chatcmpl-fake-1', 'call_fake_1_1']);
      expect(fake.requests).toHaveLength(3);
    } finally {
      await fake.close();
    }
  });
});
