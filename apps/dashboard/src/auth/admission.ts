import type { DashboardConfig } from '../dashboard.config.js';
import type { Admission, Role } from './session.types.js';

type SignInRules = Pick<DashboardConfig['signIn'], 'admins' | 'members' | 'allowedOrgs'>;

function listed(logins: readonly string[], login: string): boolean {
  return logins.some((entry) => entry.toLowerCase() === login.toLowerCase());
}

/** The role the lists give `login` (`DASHBOARD_ADMINS` first); null when neither names it. */
export function listedRole(rules: SignInRules, login: string): Role | null {
  if (listed(rules.admins, login)) return 'admin';
  return listed(rules.members, login) ? 'member' : null;
}

/**
 * What the configuration running now says of a sealed session: the role a list gives its login,
 * or the organisation it was let in through while that organisation is still allowed (GitHub then
 * says whether the person still belongs to it, and as what: `OrgAdmissionCheck`), or null when
 * this configuration would not let it in. A session lives in its cookie for up to
 * `DASHBOARD_SESSION_HOURS`, so without this an admin taken off `DASHBOARD_ADMINS`, a member taken
 * off `DASHBOARD_MEMBERS` or an organisation taken off `DASHBOARD_ALLOWED_ORGS` kept their way in
 * until the cookie expired. A cookie sealed before admissions were recorded counts only through
 * the lists.
 */
export function standingNow(
  rules: SignInRules,
  session: { login: string; admission?: Admission | undefined },
): { role: Role } | { org: string } | null {
  const listedNow = listedRole(rules, session.login);
  if (listedNow) return { role: listedNow };
  const admission = session.admission;
  if (admission?.via !== 'org') return null;
  return listed(rules.allowedOrgs, admission.org) ? { org: admission.org } : null;
}
