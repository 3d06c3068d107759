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
 * The role a sealed session holds under the configuration running now, or null when that
 * configuration would not let it in. A session lives in its cookie for up to
 * `DASHBOARD_SESSION_HOURS`, so without this an admin taken off `DASHBOARD_ADMINS`, a member taken
 * off `DASHBOARD_MEMBERS` or an organisation taken off `DASHBOARD_ALLOWED_ORGS` kept their way in
 * until the cookie expired. A listed login gets its listed role; a session let in through an
 * organisation keeps the role GitHub gave it while that organisation is still allowed (leaving
 * the organisation itself is seen at the next sign-in, when the session ends). A cookie sealed
 * before admissions were recorded counts only through the lists.
 */
export function roleNow(
  rules: SignInRules,
  session: { login: string; role: Role; admission?: Admission | undefined },
): Role | null {
  const listedNow = listedRole(rules, session.login);
  if (listedNow) return listedNow;
  const admission = session.admission;
  if (admission?.via !== 'org') return null;
  return listed(rules.allowedOrgs, admission.org) ? session.role : null;
}

/**
 * Whether the running configuration could still let `login` sign in: listed, or any organisation
 * allowed (whose membership only GitHub knows). A personal token whose owner could not sign in
 * any more stops working with the sign-in.
 */
export function mayStillSignIn(rules: SignInRules, login: string): boolean {
  return listedRole(rules, login) !== null || rules.allowedOrgs.length > 0;
}
