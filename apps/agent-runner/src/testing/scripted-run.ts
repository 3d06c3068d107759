import { workingTreeInstructionFiles } from '../agent/agents-file-finder.js';
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { trajectoryFromEvents } from '@caravel/agent';
import { StartRunV1 } from '@caravel/contracts';
import type {
  RunRepository,
  ThreadMessageRepository,
  ThreadPlanRepository,
  UserInstructionsRepository,
  UserProfileRepository,
} from '@caravel/db';
import type { SandboxBrokerClient, ToolSandboxAdapter } from '@caravel/sandbox';
import { strictMock } from '@caravel/testing/doubles';
import type { ReplyChannel, ScmPort } from '@caravel/tools';
import { DirectoryToolSandbox } from '@caravel/tools/testing';
import { MemorySaver } from '@langchain/langgraph';
import { agentRunnerConfigFrom } from '../agent-runner.config.js';
import { AgentFactoryService } from '../agent/agent-factory.service.js';
import type { CheckpointerService } from '../agent/checkpointer.service.js';
import { AgentKitLoader } from '../agent/agent-kit.loader.js';
import { RunModels } from '../agent/run-models.js';
import { streamRun } from '../agent/run-stream.js';
import type { SandboxLossNotice } from '../agent/sandbox-loss.notice.js';
import type { ThreadWorkspace } from '../sandbox/thread-sandbox.service.js';
import { RunEvents } from '../services/run-events.js';
import { recordingPublisher } from './recording-publisher.js';

/** One scripted answer (the `scripted:` model file format). */
export type Turn =
  | { content: string; cost?: number }
  | { tool_calls: { name: string; args: object }[]; cost?: number };
/** An answer that calls one tool. */
export const call = (name: string, args: object = {}): Turn => ({ tool_calls: [{ name, args }] });

function script(dir: string, name: string, responses: Turn[]): string {
  writeFileSync(join(dir, name), JSON.stringify({ responses }));
  return `scripted:${name}`;
}

/** The real agent factory over strict doubles of its stores, checkpointing in `checkpointer`. */
export function scriptedFactory(
  config: ReturnType<typeof agentRunnerConfigFrom>,
  checkpointer: MemorySaver,
): AgentFactoryService {
  const kit = new AgentKitLoader();
  return new AgentFactoryService(
    config,
    new RunModels(config, kit),
    strictMock<CheckpointerService>(
      { get: () => Promise.resolve(checkpointer as never) },
      'checkpointer',
    ),
    strictMock<ThreadPlanRepository>({ ownerOf: () => Promise.resolve(null) }, 'plans'),
    strictMock<UserInstructionsRepository>({}, 'instructions'),
    strictMock<UserProfileRepository>({}, 'profiles'),
    strictMock<SandboxLossNotice>({}, 'sandboxLoss'),
    strictMock<ThreadMessageRepository>({ takenBy: () => Promise.resolve([]) }, 'messages'),
    kit,
  );
}

/** A thread's workspace on `dir`: no AGENTS.md, every command parses, a healthy broker. */
export function scriptedWorkspace(
  dir: string,
  threadId: string,
  repository?: ThreadWorkspace['repository'],
): ThreadWorkspace {
  return strictMock<ThreadWorkspace>(
    {
      threadId,
      ...(repository ? { repository } : {}),
      sandbox: strictMock<ThreadWorkspace['sandbox']>(
        {
          readFile: () => Promise.reject(new Error('no AGENTS.md')),
          // The syntax check: every command here parses.
          exec: () => Promise.resolve({ exitCode: 0, output: '', timedOut: false }) as never,
        },
        'sandbox',
      ),
      tools: new DirectoryToolSandbox(dir) as unknown as ToolSandboxAdapter,
      broker: strictMock<SandboxBrokerClient>(
        { ping: () => Promise.resolve() as never, snapshotTurn: () => Promise.resolve() as never },
        'broker',
      ),
    },
    'workspace',
  );
}

/**
 * One run through the real factory, stack, tools and step recorder, on scripted models: the run's
 * model and, when `subagentScript` is given, the team's subagent model. Returns what went on the bus.
 */
export async function scriptedRun(
  dir: string,
  mainScript: Turn[],
  subagentScript?: Turn[],
  env: Record<string, string> = {},
) {
  const main = script(dir, `main-${randomUUID()}.json`, mainScript);
  const sub = subagentScript ? script(dir, `sub-${randomUUID()}.json`, subagentScript) : undefined;
  const config = agentRunnerConfigFrom({
    CARAVEL_MODEL: main,
    CARAVEL_FILE_ROOT: dir,
    ...(sub ? { CARAVEL_SUBAGENT_MODEL: sub } : {}),
    ...env,
  });
  const factory = scriptedFactory(config, new MemorySaver());
  const fixture = StartRunV1.fixture();
  const command = { ...fixture, data: { ...fixture.data, runId: randomUUID() } };
  const { threadId, runId } = command.data;
  const bus = recordingPublisher();
  const events = new RunEvents(
    bus.publisher,
    strictMock<RunRepository>({ recordConclusion: () => Promise.resolve(true) }, 'runs'),
    command,
    'runner-test',
  );
  const recorder = events.steps();
  const replies: string[] = [];
  const workspace = scriptedWorkspace(dir, threadId);
  const built = await factory.build({
    threadId,
    runId,
    options: {},
    workspace,
    instructions: workingTreeInstructionFiles(workspace.sandbox),
    channel: strictMock<ReplyChannel>(
      { reply: (text) => Promise.resolve({ messageId: String(replies.push(text)) }) },
      'channel',
    ),
    scm: strictMock<ScmPort>({}, 'scm'),
    notifier: strictMock<Parameters<AgentFactoryService['build']>[0]['notifier']>({}, 'notifier'),
    // As the executor does: refused answers go to the run's steps.
    events: {
      emit: (event) => {
        if (event.type === 'requery') {
          const { reply, failure, message } = event;
          recorder.noteFailedAttempt({ ...reply, failure, message });
        }
      },
    },
    queue: { drain: () => Promise.resolve([]) },
    isTrustedAuthor: () => false,
    work: events,
  });
  await events.announce({ model: `${built.model.provider}:${built.model.modelId}` });
  const prompt = 'Fix the parser.';
  await streamRun(built, { threadId, runId, prompt }, recorder, () => Promise.resolve());
  await events.finish({ exitStatus: 'submitted', submission: null, observation: '' });
  const traj = trajectoryFromEvents(bus.published.map((e) => ({ type: e.type, data: e.data })));
  return { bus, sub, traj, replies, runId };
}
