import { documented } from '@caravel/config';
import { z } from 'zod';

/** What the dashboard needs beyond the common service keys. */
export const dashboardSettingsSchema = z.object({
  DASHBOARD_TOKEN: documented(z.string().min(16).optional(), {
    description:
      'Bearer token for the dashboard actions (messages and commands into a thread, caravel attach); unset: actions are refused',
    secret: true,
  }),
});

export type DashboardSettings = z.output<typeof dashboardSettingsSchema>;

/** Injection token of the dashboard's {@link DashboardSettings}. */
export const DASHBOARD_SETTINGS = Symbol('caravel.dashboard-settings');
