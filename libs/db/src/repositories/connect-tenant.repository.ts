import type { Selectable } from 'kysely';
import type { ConnectTenant } from '../generated/types.js';
import { timeOr, type Executor } from './executor.js';
import type { RowOf } from './row-of.js';

/** A Connect tenant (`connect_tenants`); its shared secret stays sealed at this layer. */
export type ConnectTenantRow = Omit<RowOf<ConnectTenant>, 'sharedSecret'> & {
  /** The shared secret as sealed by the token cipher (never the plaintext). */
  sealedSecret: string;
};

/** An install to record, its shared secret already sealed. */
export interface ConnectInstall {
  clientKey: string;
  baseUrl: string;
  productType: string;
  sealedSecret: string;
  keyId: string;
  at?: Date;
}

function toRow(row: Selectable<ConnectTenant>): ConnectTenantRow {
  return {
    clientKey: row.client_key,
    baseUrl: row.base_url,
    productType: row.product_type,
    sealedSecret: row.shared_secret,
    keyId: row.key_id,
    installedAt: row.installed_at,
    uninstalledAt: row.uninstalled_at,
    updatedAt: row.updated_at,
  };
}

/** Sites that installed the Connect app, one row per `clientKey`. */
export class ConnectTenantRepository {
  constructor(private readonly db: Executor) {}

  /** Records an install; a reinstall replaces the secret and clears the uninstall. */
  async install(tenant: ConnectInstall, executor: Executor = this.db): Promise<ConnectTenantRow> {
    const at = timeOr(tenant.at);
    const values = {
      base_url: tenant.baseUrl,
      product_type: tenant.productType,
      shared_secret: tenant.sealedSecret,
      key_id: tenant.keyId,
      installed_at: at,
      uninstalled_at: null,
      updated_at: at,
    };
    const row = await executor
      .insertInto('connect_tenants')
      .values({ client_key: tenant.clientKey, ...values })
      .onConflict((conflict) => conflict.column('client_key').doUpdateSet(values))
      .returningAll()
      .executeTakeFirstOrThrow();
    return toRow(row);
  }

  /** Marks a tenant uninstalled; false when it was unknown or already uninstalled. */
  async uninstall(clientKey: string, at?: Date, executor: Executor = this.db): Promise<boolean> {
    const result = await executor
      .updateTable('connect_tenants')
      .set({ uninstalled_at: timeOr(at), updated_at: timeOr(at) })
      .where('client_key', '=', clientKey)
      .where('uninstalled_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The tenant of a client key, installed or not. */
  async get(clientKey: string, executor: Executor = this.db): Promise<ConnectTenantRow | null> {
    const row = await executor
      .selectFrom('connect_tenants')
      .selectAll()
      .where('client_key', '=', clientKey)
      .executeTakeFirst();
    return row ? toRow(row) : null;
  }

  /** Every tenant, installed or not, by client key (a re-seal walks them all; they are few). */
  async list(executor: Executor = this.db): Promise<ConnectTenantRow[]> {
    const rows = await executor
      .selectFrom('connect_tenants')
      .selectAll()
      .orderBy('client_key')
      .execute();
    return rows.map(toRow);
  }

  /**
   * Replaces a tenant's sealed secret if it is still `from`: a reinstall that wrote a new one in
   * the meantime wins. True when the row was replaced.
   */
  async replaceSecret(
    clientKey: string,
    from: string,
    to: { sealedSecret: string; keyId: string; at?: Date },
    executor: Executor = this.db,
  ): Promise<boolean> {
    const result = await executor
      .updateTable('connect_tenants')
      .set({ shared_secret: to.sealedSecret, key_id: to.keyId, updated_at: timeOr(to.at) })
      .where('client_key', '=', clientKey)
      .where('shared_secret', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The tenant of a client key while it is installed (the only ones whose JWTs count). */
  async getInstalled(clientKey: string): Promise<ConnectTenantRow | null> {
    const row = await this.get(clientKey);
    return row && row.uninstalledAt === null ? row : null;
  }
}
