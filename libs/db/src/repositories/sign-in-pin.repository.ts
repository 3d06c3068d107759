import type { Executor } from './executor.js';

/**
 * The GitHub account each listed login first signed in as (`sign_in_pins`): GitHub frees a login
 * when its account is renamed, so the dashboard's lists of logins keep to the account they meant.
 */
export class SignInPinRepository {
  constructor(private readonly db: Executor) {}

  /**
   * Pins `login` (any case) to `githubId` unless it is pinned already; the account it is pinned to
   * either way. Two first sign-ins at once agree: the one whose row landed wins for both.
   */
  async pin(login: string, githubId: number): Promise<number> {
    const key = login.toLowerCase();
    await this.db
      .insertInto('sign_in_pins')
      .values({ login: key, github_id: githubId })
      .onConflict((conflict) => conflict.column('login').doNothing())
      .execute();
    const row = await this.db
      .selectFrom('sign_in_pins')
      .select('github_id')
      .where('login', '=', key)
      .executeTakeFirstOrThrow();
    return row.github_id;
  }

  /** Forgets the pin of `login` (any case); whether there was one. */
  async release(login: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('sign_in_pins')
      .where('login', '=', login.toLowerCase())
      .executeTakeFirst();
    return result.numDeletedRows > 0n;
  }
}
