import { isAppError } from '@caravel/errors';
import { readCannedSource } from './canned/canned-source.js';
import { assertProviderCredentials, type ModelCredentials } from './model-credentials.js';
import { resolveModel } from './model-resolution.js';

/** Why a model reference cannot make a chat model here, for a start-up check. */
export interface ModelProblem {
  readonly message: string;
  /** The variable to set, when the provider's credential is what is missing. */
  readonly envVar?: string;
}

/**
 * Checks the model `spec` names as building it for a run would (catalogue, credentials, a
 * scripted or replay file read and parsed), and says why it cannot work, or null when it can:
 * so a process refuses to start on a model that would fail its first run. It builds no chat
 * model, so a process that only checks its settings never loads a provider's client.
 */
export function modelProblem(
  spec: string,
  credentials: ModelCredentials,
  options: { fileRoot?: string } = {},
): ModelProblem | null {
  try {
    const model = resolveModel({ team: { model: spec } });
    assertProviderCredentials(model.provider, credentials);
    if (model.provider === 'scripted' || model.provider === 'replay')
      readCannedSource(model.provider, model.modelId, options.fileRoot);
    return null;
  } catch (error) {
    if (!isAppError(error)) throw error;
    const envVar = error.details['envVar'];
    return typeof envVar === 'string'
      ? { message: `${spec} needs ${envVar}: set ${envVar}, or choose another model`, envVar }
      : { message: `${spec}: ${error.message}` };
  }
}
