import { isAppError } from '@caravel/errors';
import { createChatModel, type ChatModelOptions } from './chat-model.factory.js';
import type { ModelCredentials } from './model-credentials.js';
import { resolveModel } from './model-resolution.js';

/** Why a model reference cannot make a chat model here, for a start-up check. */
export interface ModelProblem {
  readonly message: string;
  /** The variable to set, when the provider's credential is what is missing. */
  readonly envVar?: string;
}

/**
 * Builds the chat model `spec` names once, as a run would (catalogue, credentials, a scripted or
 * replay file read and parsed), and says why it cannot work, or null when it can: so a process
 * refuses to start on a model that would fail its first run.
 */
export function modelProblem(
  spec: string,
  credentials: ModelCredentials,
  options: Pick<ChatModelOptions, 'fileRoot'> = {},
): ModelProblem | null {
  try {
    createChatModel(resolveModel({ team: { model: spec } }), credentials, options);
    return null;
  } catch (error) {
    if (!isAppError(error)) throw error;
    const envVar = error.details['envVar'];
    return typeof envVar === 'string'
      ? { message: `${spec} needs ${envVar}: set ${envVar}, or choose another model`, envVar }
      : { message: `${spec}: ${error.message}` };
  }
}
