import { modelProblem } from '@caravel/agent';
import { distributedServiceSchema } from '@caravel/config';
import { agentSettingsSchema, modelCredentialsOf } from './agent-runner.settings.js';

/**
 * The distributed agent runner's configuration. A team default model that cannot work here (an
 * unknown name, its provider's key unset, an unreadable script) is an invalid `CARAVEL_MODEL`,
 * reported at start with the other invalid keys rather than by the first run.
 */
export const agentRunnerConfigSchema = distributedServiceSchema(3003)
  .extend(agentSettingsSchema.shape)
  .superRefine((config, context) => {
    if (!config.CARAVEL_MODEL) return;
    const problem = modelProblem(config.CARAVEL_MODEL, modelCredentialsOf(config), {
      fileRoot: config.CARAVEL_FILE_ROOT,
    });
    if (problem)
      context.addIssue({ code: 'custom', path: ['CARAVEL_MODEL'], message: problem.message });
  });
