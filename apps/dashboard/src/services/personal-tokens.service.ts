import {
  PersonalTokenRepository,
  type PersonalTokenRow,
  type PersonalTokenScope,
} from '@caravel/db';
import { AppError } from '@caravel/errors';
import { Inject, Injectable } from '@nestjs/common';
import { mintPersonalToken, parsePersonalToken, secretMatches } from '../auth/personal-token.js';
import type { Caller, Session } from '../auth/session.types.js';
import { mayManageAnyone, whoseFor } from '../auth/whose.js';

const DAY_MS = 86_400_000;
/** A person may hold this many live tokens at once. */
const MAX_LIVE_TOKENS = 20;

/** A token as its owner sees it listed (never its secret). */
export interface PersonalTokenView {
  id: string;
  name: string;
  scope: PersonalTokenScope;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

function viewOf(row: PersonalTokenRow): PersonalTokenView {
  const { id, name, scope, createdAt, expiresAt, lastUsedAt, revokedAt } = row;
  return { id, name, scope, createdAt, expiresAt, lastUsedAt, revokedAt };
}

const refused = (why: string) =>
  new AppError('UNAUTHENTICATED', `this personal token is ${why}: make a new one in the dashboard`);

/**
 * People's own dashboard API tokens: made by a signed-in person (shown once), listed and revoked
 * by them; each acts as that person within its scope (`read`, or `act` in threads), never on
 * admin routes, until it expires or is revoked (docs/dashboard.md).
 */
@Injectable()
export class PersonalTokensService {
  constructor(@Inject(PersonalTokenRepository) private readonly tokens: PersonalTokenRepository) {}

  async create(
    owner: Session,
    request: { name: string; scope: PersonalTokenScope; days: number },
    now: Date = new Date(),
  ): Promise<PersonalTokenView & { token: string }> {
    const live = (await this.tokens.listFor(owner.login)).filter(
      (row) => row.revokedAt === null && row.expiresAt > now,
    );
    if (live.length >= MAX_LIVE_TOKENS) {
      throw new AppError(
        'PRECONDITION_FAILED',
        `${owner.login} has ${live.length} live tokens already: revoke one first`,
      );
    }
    const minted = mintPersonalToken();
    const row = await this.tokens.create({
      id: minted.id,
      login: owner.login,
      githubId: owner.githubId,
      name: request.name,
      scope: request.scope,
      secretSha256: minted.secretSha256,
      expiresAt: new Date(now.getTime() + request.days * DAY_MS),
    });
    return { ...viewOf(row), token: minted.token };
  }

  /**
   * A person's tokens: the caller's own (a person, when `login` is theirs or unsaid), or anyone's
   * for an admin's sign-in or the machine token, so someone who leaves can be cut off.
   */
  async list(caller: Caller, login?: string): Promise<PersonalTokenView[]> {
    return (await this.tokens.listFor(whoseFor(caller, login, 'tokens'))).map(viewOf);
  }

  /** Revokes a token: a person their own (another's is not found), an admin or the machine any. */
  async revoke(caller: Caller, id: string): Promise<void> {
    const row = await this.tokens.get(id);
    const own = caller.kind === 'person' ? caller.session.login : undefined;
    const allowed = row && (row.login === own || mayManageAnyone(caller));
    if (!allowed || !(await this.tokens.revoke(id, row.login))) {
      throw new AppError('NOT_FOUND', `${own ?? 'the machine token'} has no live token ${id}`);
    }
  }

  /** The caller a personal token stands for; a refusal for anything else it could be. */
  async authenticate(presented: string, now: Date = new Date()): Promise<Caller> {
    const parsed = parsePersonalToken(presented);
    if (!parsed) throw refused('malformed');
    const row = await this.tokens.get(parsed.id);
    if (!row || !secretMatches(parsed.secret, row.secretSha256)) throw refused('unknown');
    if (row.revokedAt) throw refused('revoked');
    if (row.expiresAt <= now) throw refused('expired');
    await this.tokens.touch(row.id, now);
    return {
      kind: 'person',
      session: {
        login: row.login,
        githubId: row.githubId,
        name: null,
        avatarUrl: null,
        role: 'member',
        expiresAt: row.expiresAt.getTime(),
      },
      token: { id: row.id, scope: row.scope },
    };
  }
}
