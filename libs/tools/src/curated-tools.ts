import type { CaravelTool, ToolEffect } from './core/tool-definition.js';
import { resolveToolOptions, type ToolOptions } from './core/tool-options.js';
import type { ReplyChannel } from './ports/reply-channel.port.js';
import type { ScmPort } from './ports/scm.port.js';
import type { ToolSandbox } from './ports/tool-sandbox.port.js';
import { commitAndOpenPrTool } from './tools/commit-and-open-pr.tool.js';
import { confirmingCompletionTool, noOpTool } from './tools/completion.tools.js';
import { editFileTool } from './tools/edit-file.tool.js';
import { executeTool } from './tools/execute.tool.js';
import { globTool } from './tools/glob.tool.js';
import { grepTool } from './tools/grep.tool.js';
import { lsTool } from './tools/ls.tool.js';
import { readFileTool } from './tools/read-file.tool.js';
import { replyToUserTool } from './tools/reply-to-user.tool.js';
import { forfeitTool } from './tools/forfeit.tool.js';
import { submitTool } from './tools/submit.tool.js';
import { writeFileTool } from './tools/write-file.tool.js';
import { reportPlatformIssueTool, saveUserInstructionsTool } from './tools/agent-profile.tools.js';
import type {
  PlanStorePort,
  PlatformIssueReporter,
  RunPeople,
  UserInstructionsPort,
} from './tools/agent-state.ports.js';
import { approvePlanTool, enterPlanModeTool, savePlanTool } from './tools/plan.tools.js';
import type { SubagentPort, TodoListPort } from './tools/agent-work.ports.js';
import { TASK_TOOL_NAME, taskTool } from './tools/task.tool.js';
import { WRITE_TODOS_TOOL_NAME, writeTodosTool } from './tools/write-todos.tool.js';

/** What the main agent's tools are bound to. */
export interface MainAgentPorts {
  sandbox: ToolSandbox;
  channel: ReplyChannel;
  scm: ScmPort;
  /** Pull requests open as drafts (default) or, false, ready for review: the requester's choice. */
  draftPullRequests?: boolean;
}

/** What the chat agent's tools are bound to: no SCM, it never publishes. */
export interface ChatAgentPorts {
  sandbox: ToolSandbox;
  channel: ReplyChannel;
}

/** Effects the read-only chat agent may have: it looks, answers, and stops. */
export const CHAT_EFFECTS: readonly ToolEffect[] = ['read', 'reply', 'control'];

/**
 * The main coding agent's curated tool set, in the order the model sees them: file and search
 * tools, the shell, then replying, publishing and the control tools.
 */
export function curatedTools(
  ports: MainAgentPorts,
  options: Partial<ToolOptions> = {},
): CaravelTool[] {
  const resolved = resolveToolOptions(options);
  return [
    ...workspaceTools(ports.sandbox, resolved),
    replyToUserTool(ports.channel),
    commitAndOpenPrTool(ports.scm, { draft: ports.draftPullRequests ?? true }),
    submitTool(ports.sandbox, resolved),
    forfeitTool(),
    noOpTool(),
    confirmingCompletionTool(),
  ];
}

/**
 * The chat agent's tools: the read-only subset (no file writes, no shell, no pull requests, no
 * submission) of the same tools, so both agents read files the same way.
 */
export function chatTools(
  ports: ChatAgentPorts,
  options: Partial<ToolOptions> = {},
): CaravelTool[] {
  const resolved = resolveToolOptions(options);
  const tools = [
    ...workspaceTools(ports.sandbox, resolved),
    replyToUserTool(ports.channel),
    noOpTool(),
    confirmingCompletionTool(),
  ];
  return readOnlySubset(tools);
}

/** The tools whose effect the chat agent may have. */
export function readOnlySubset(tools: readonly CaravelTool[]): CaravelTool[] {
  return tools.filter((tool) => CHAT_EFFECTS.includes(tool.effect));
}

/** True when calling `tool` ends the run (the submission protocol). */
export function endsRun(tool: Pick<CaravelTool, 'effect'>): boolean {
  return tool.effect === 'finish';
}

/** The tools that look at and change a workspace: read, write, edit, list, glob, grep, execute. */
export function workspaceTools(sandbox: ToolSandbox, options: ToolOptions): CaravelTool[] {
  return [
    readFileTool(sandbox, options),
    writeFileTool(sandbox),
    editFileTool(sandbox, options),
    lsTool(sandbox, options),
    globTool(sandbox, options),
    grepTool(sandbox, options),
    executeTool(sandbox, options),
  ];
}

/** What the plan, user-instruction and platform-issue tools are bound to. */
export interface AgentStatePorts {
  plans: PlanStorePort;
  people: RunPeople;
  userInstructions: UserInstructionsPort;
  platformIssues: PlatformIssueReporter;
}

/**
 * The main agent's plan-mode tools (`enter_plan_mode`, `save_plan`, `approve_plan`) and its
 * `save_user_instructions` and `report_platform_issue` tools.
 */
export function agentStateTools(ports: AgentStatePorts): CaravelTool[] {
  return [
    enterPlanModeTool(),
    savePlanTool(ports.plans, ports.people),
    approvePlanTool(ports.plans, ports.people),
    saveUserInstructionsTool(ports.userInstructions, ports.people),
    reportPlatformIssueTool(ports.platformIssues),
  ];
}

/** The tools plan mode hides: every tool that changes the workspace or publishes it. */
export function mutatingToolNames(tools: readonly CaravelTool[]): string[] {
  return tools.filter((tool) => tool.effect === 'write').map((tool) => tool.name);
}

/** What the delegation and todo-list tools are bound to. */
export interface AgentWorkPorts {
  subagents: SubagentPort;
  todos: TodoListPort;
}

/** The main agent's `write_todos` and `task` tools. */
export function agentWorkTools(ports: AgentWorkPorts): CaravelTool[] {
  return [writeTodosTool(ports.todos), taskTool(ports.subagents)];
}

/** Tools of the run's conversation with people, which a subagent does not take part in. */
const RUN_CONVERSATION_TOOLS = [
  'enter_plan_mode',
  'save_plan',
  'approve_plan',
  'save_user_instructions',
];

/**
 * A subagent's tools: the run's tools without `task` (no recursion), without `write_todos` (the
 * todo list is the run's, kept by the main agent), without the tools that end the run, and
 * without plan mode and standing instructions (the run's conversation with people).
 */
export function subagentToolsOf(tools: readonly CaravelTool[]): CaravelTool[] {
  const withheld = new Set([TASK_TOOL_NAME, WRITE_TODOS_TOOL_NAME, ...RUN_CONVERSATION_TOOLS]);
  return tools.filter((tool) => !withheld.has(tool.name) && !endsRun(tool));
}
