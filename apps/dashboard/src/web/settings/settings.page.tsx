import { useState } from 'react';
import type { Me, Profile } from '../api.js';
import { useApi } from '../use-api.js';
import { Async, Page, Section } from '../ui.js';
import { BudgetsSection } from './budgets.js';
import { InstructionsSection } from './instructions.js';
import { ModelsSection } from './models.js';
import { ProfileForm } from './profile-form.js';
import { RepositoriesSection } from './repositories.js';
import { ReviewStylesSection } from './review-styles.js';
import { SessionsSection } from './sessions.js';
import { TeamSection } from './team.js';

function ProfileSection({ me }: { me: Me | null }) {
  const identity = me ? `github:${me.login}` : null;
  const profile = useApi<Profile>(identity && `/api/profiles/${encodeURIComponent(identity)}`);
  return (
    <Section id="profile-title" title="Your profile">
      {identity ? (
        <Async loaded={profile}>
          {(saved) => <ProfileForm identity={identity} profile={saved} />}
        </Async>
      ) : (
        <p>Sign in to keep a profile.</p>
      )}
    </Section>
  );
}

/**
 * Settings: the person's profile, sessions and standing instructions, the team's (admins), the enabled
 * repositories, budgets per run, the learned review styles, the supported models. A change that alters a list reads every section again.
 */
export function SettingsPage({ me }: { me: Me | null }) {
  const [version, setVersion] = useState(0);
  const reload = () => setVersion((v) => v + 1);
  const admin = me?.role === 'admin';
  return (
    <Page title="Settings">
      <div key={version} className="sections">
        <ProfileSection me={me} />
        <SessionsSection me={me} />
        <InstructionsSection me={me} reload={reload} />
        <TeamSection admin={admin} reload={reload} />
        <RepositoriesSection admin={admin} reload={reload} />
        <BudgetsSection admin={admin} reload={reload} />
        <ReviewStylesSection admin={admin} />
        <ModelsSection />
      </div>
    </Page>
  );
}
