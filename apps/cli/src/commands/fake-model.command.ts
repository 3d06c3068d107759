// `caravel fake-model`: the loopback fake OpenAI-compatible server (`@caravel/fake-llm`, node:http
// only) answering a model script, so that anyone can try Caravel end to end without a key.
import { loadModelScript, type CannedResponse } from '@caravel/agent';
import { startFakeOpenAi, type FakeLlmReply, type RecordedLlmRequest } from '@caravel/fake-llm';
import { resolve } from 'node:path';
import { assertPortFree } from './port-check.js';

/** Options of `caravel fake-model`. */
export interface FakeModelOptions {
  port: number;
  /** A model script (as `scripted:` takes); default {@link LOOK_AND_SUBMIT}. */
  script?: string;
  write: (line: string) => void;
}

/** What the fake answers without a script: one look at the repository, then submit. */
export const LOOK_AND_SUBMIT: readonly FakeLlmReply[] = [
  {
    text: 'Let me look at the repository first.',
    toolCalls: [{ name: 'execute', args: { command: 'git log --oneline -3 && ls' } }],
  },
  {
    text: 'I am a fake model: I looked, and I change nothing. Submitting.',
    toolCalls: [{ name: 'submit', args: {} }],
  },
];

/** A script's answer as the fake server sends it. */
export function replyOf(response: CannedResponse): FakeLlmReply {
  const { error } = response;
  if (error !== undefined) {
    return {
      error: {
        status: error.status ?? 408,
        message: error.message,
        ...(error.retryAfterSeconds === undefined
          ? {}
          : { retryAfterSeconds: error.retryAfterSeconds }),
      },
    };
  }
  return {
    ...(response.content === undefined ? {} : { text: response.content }),
    ...(response.toolCalls === undefined ? {} : { toolCalls: response.toolCalls }),
    ...(response.usage === undefined ? {} : { usage: response.usage }),
  };
}

/**
 * The answer to a request: the script's answer at the place the conversation is at (how many
 * answers it already holds), so that the server keeps no state and a resumed run is answered
 * alike. Past the script's end, an error saying so.
 */
export function answerFor(
  request: RecordedLlmRequest,
  script: readonly FakeLlmReply[],
): FakeLlmReply {
  const messages = request.body?.['messages'];
  const answered = Array.isArray(messages)
    ? messages.filter((m) => (m as { role?: unknown } | null)?.role === 'assistant').length
    : 0;
  return (
    script[answered] ?? {
      error: {
        status: 400,
        message: `fake model: the conversation is at answer ${answered + 1}, the script has ${script.length}`,
      },
    }
  );
}

function describe(reply: FakeLlmReply): string {
  if ('error' in reply) return `error ${reply.error.status}: ${reply.error.message}`;
  const calls = (reply.toolCalls ?? []).map((call) => `${call.name} ${JSON.stringify(call.args)}`);
  return calls.length > 0 ? calls.join('; ') : JSON.stringify(reply.text ?? '');
}

/** `caravel fake-model`: serves the script on 127.0.0.1:`port` until closed. */
export async function serveFakeModel(
  options: FakeModelOptions,
): Promise<{ close(): Promise<void> }> {
  const script = options.script
    ? loadModelScript(resolve(options.script)).map(replyOf)
    : LOOK_AND_SUBMIT;
  await assertPortFree('127.0.0.1', options.port, 'pass --port N');
  const fake = await startFakeOpenAi(options.port);
  let calls = 0;
  fake.respondWith((request) => {
    const reply = answerFor(request, script);
    calls += 1;
    options.write(`call ${calls}: ${describe(reply)}`);
    return reply;
  });
  options.write(
    `fake model (OpenAI-compatible) listening on ${fake.baseUrl}, answering from ` +
      `${options.script ?? 'its built-in script (look, then submit)'}\n` +
      `use it with: CARAVEL_MODEL=openai-compatible:fake OPENAI_COMPATIBLE_BASE_URL=${fake.baseUrl}`,
  );
  return fake;
}
