import {
  HOSTED_MODELS,
  PATTERN_MODELS,
  parseModelSpec,
  resolveModel,
  type ModelCatalogueEntry,
} from '@caravel/agent';
import {
  RepositoryInstructionsRepository,
  TeamDefaultsRepository,
  type RepositoryInstructionsRow,
  type TeamDefaultsRow,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import type { z } from 'zod';
import { ROUTES } from '../api/routes.js';
import type { supportedModelResponse } from '../api/schemas.js';
import type { Caller } from '../auth/session.types.js';
import { actorOf, repositoryOf } from './enabled-repositories.service.js';

export type TeamDefaultsSettings = z.output<typeof ROUTES.saveTeamDefaults.body>;

/** The team's defaults as the API shows them: every field null before an admin saved any. */
export type TeamDefaultsView = Omit<TeamDefaultsRow, 'updatedBy' | 'updatedAt'> & {
  updatedBy: string | null;
  updatedAt: Date | null;
};

/** A repository's instructions as the API shows them: empty when it has none. */
export type RepositoryInstructionsView = Omit<
  RepositoryInstructionsRow,
  'updatedBy' | 'updatedAt'
> & { updatedBy: string | null; updatedAt: Date | null };

const NO_DEFAULTS: TeamDefaultsView = {
  model: null,
  reasoningEffort: null,
  fallbackModel: null,
  subagentModel: null,
  draftPullRequests: null,
  alwaysCreatePullRequests: null,
  updatedBy: null,
  updatedAt: null,
};

/** Refuses what a run could not use: an unknown model, or an effort its model does not take. */
function checkModels(settings: TeamDefaultsSettings): void {
  const { model, reasoningEffort, fallbackModel, subagentModel } = settings;
  if (reasoningEffort !== null && model === null) {
    throw new AppError('BAD_REQUEST', 'a team reasoning effort needs a team model to apply to');
  }
  if (model !== null) resolveModel({ team: { model, effort: reasoningEffort } });
  if (fallbackModel !== null) parseModelSpec(fallbackModel);
  if (subagentModel !== null) parseModelSpec(subagentModel);
}

/**
 * What admins keep for the whole team (the routes are admin-only): the team's defaults, which
 * sit between people's profiles and the environment, and each repository's instructions, which
 * every coding run in the repository reads beside its AGENTS.md.
 */
/** One row of the supported-models table, as the API gives it. */
export type SupportedModel = z.output<typeof supportedModelResponse>;

function supportedModelOf(entry: ModelCatalogueEntry): SupportedModel {
  return {
    provider: entry.provider,
    modelId: entry.modelId,
    label: entry.label,
    contextWindow: entry.contextWindow,
    inputPricePerMillion: entry.inputPricePerMillion,
    outputPricePerMillion: entry.outputPricePerMillion,
    effortLevels: [...(entry.effort?.levels ?? [])],
    defaultEffort: entry.effort?.defaultLevel ?? null,
  };
}

@Injectable()
export class TeamSettingsService {
  constructor(
    @Inject(TeamDefaultsRepository) private readonly defaults: TeamDefaultsRepository,
    @Inject(RepositoryInstructionsRepository)
    private readonly instructions: RepositoryInstructionsRepository,
  ) {}

  /** The supported-models table: the hosted models, then the pattern rows (self-hosted, tests). */
  supportedModels(): SupportedModel[] {
    return [...HOSTED_MODELS, ...PATTERN_MODELS].map(supportedModelOf);
  }

  async teamDefaults(): Promise<TeamDefaultsView> {
    return (await this.defaults.get()) ?? NO_DEFAULTS;
  }

  saveTeamDefaults(caller: Caller, settings: TeamDefaultsSettings): Promise<TeamDefaultsRow> {
    checkModels(settings);
    return this.defaults.save({ ...settings, updatedBy: actorOf(caller) });
  }

  listInstructions(): Promise<RepositoryInstructionsRow[]> {
    return this.instructions.list();
  }

  async instructionsOf(owner: string, name: string): Promise<RepositoryInstructionsView> {
    const repository = repositoryOf(owner, name);
    return (
      (await this.instructions.find(repository)) ?? {
        repository: repository.toLowerCase(),
        instructions: '',
        updatedBy: null,
        updatedAt: null,
      }
    );
  }

  saveInstructions(
    caller: Caller,
    owner: string,
    name: string,
    instructions: string,
  ): Promise<RepositoryInstructionsRow> {
    const repository = repositoryOf(owner, name);
    return this.instructions.save({ repository, instructions, updatedBy: actorOf(caller) });
  }

  async removeInstructions(owner: string, name: string): Promise<void> {
    const repository = repositoryOf(owner, name);
    if (!(await this.instructions.remove(repository))) {
      throw new AppError('NOT_FOUND', `${repository} has no instructions`);
    }
  }
}
