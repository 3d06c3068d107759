import { Button } from '@mantine/core';
import type { FormEvent } from 'react';
import { api, type Profile } from '../api.js';
import { when } from '../ui.js';
import { Check, Fields, nullables, useFormStatus, type FieldSpec } from './fields.js';

const FIELDS: FieldSpec[] = [
  ['model', 'Model', 'team default, e.g. anthropic:claude-sonnet-4-5'],
  ['reasoningEffort', 'Reasoning effort', 'low, medium, high'],
  ['defaultRepository', 'Default repository', 'owner/name'],
  [
    'fallbackModel',
    'Fallback model',
    "used when the model fails after its retries; team's by default",
  ],
  ['subagentModel', 'Subagent model', "what the task tool's subagents run on; team's by default"],
];

/**
 * The person's profile: model and effort, default repository, fallback and subagent models, draft
 * pull requests, auto-fix CI.
 * Auto-fix CI shows the team's default (on) until the person changes it: left as shown, a profile
 * that never chose keeps following the team.
 */
export function ProfileForm({ identity, profile }: { identity: string; profile: Profile }) {
  const { status, say, fail } = useFormStatus();
  const autofixShown = profile.autofixCi ?? true;
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const autofix = data.get('autofixCi') !== null;
    const body = {
      ...nullables(data, FIELDS),
      draftPullRequests: data.get('draftPullRequests') !== null,
      alwaysCreatePullRequests: profile.alwaysCreatePullRequests,
      autofixCi: autofix === autofixShown ? profile.autofixCi : autofix,
    };
    api<Profile>(`/api/profiles/${encodeURIComponent(identity)}`, { method: 'PUT', body }).then(
      (saved) => say(`Saved ${when(saved.updatedAt)}.`),
      fail,
    );
  };
  return (
    <form className="profile" aria-label="profile" onSubmit={submit}>
      <Fields specs={FIELDS} saved={profile} />
      <Check
        name="draftPullRequests"
        label="Open pull requests as drafts"
        checked={profile.draftPullRequests}
      />
      <Check name="autofixCi" label="Auto-fix CI on my pull requests" checked={autofixShown} />
      <Button type="submit">Save profile</Button>
      {status}
    </form>
  );
}
