/**
 * Sync schedules, pure: incremental every N minutes (default 15), full daily at HH:MM UTC (default 02:00).
 * Per-connector settings (`sync_interval_minutes`, `full_sync_at_utc`) override the global defaults.
 */
export interface Schedule {
  readonly intervalMinutes: number;
  readonly fullAtUtc: string;
}

export function scheduleFor(settings: Record<string, unknown>, defaults: Schedule): Schedule {
  const interval = settings.sync_interval_minutes;
  const at = settings.full_sync_at_utc;
  return {
    intervalMinutes: typeof interval === 'number' && interval > 0 ? interval : defaults.intervalMinutes,
    fullAtUtc: typeof at === 'string' && /^([01]\d|2[0-3]):[0-5]\d$/.test(at) ? at : defaults.fullAtUtc,
  };
}

export function nextIncrementalAt(now: Date, schedule: Schedule): Date {
  return new Date(now.getTime() + schedule.intervalMinutes * 60_000);
}

/** The first HH:MM UTC strictly after `now`. */
export function nextFullAt(now: Date, schedule: Schedule): Date {
  const [h, m] = schedule.fullAtUtc.split(':').map(Number);
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate(), h ?? 2, m ?? 0));
  if (d.getTime() <= now.getTime()) d.setUTCDate(d.getUTCDate() + 1);
  return d;
}

export type DueSync = 'full' | 'incremental' | null;

/** Which sync is due for a connector at `now`: a due full sync wins over an incremental one. */
export function dueSync(now: Date, next: { incremental: Date | null; full: Date | null }): DueSync {
  if (next.full && next.full.getTime() <= now.getTime()) return 'full';
  if (next.incremental && next.incremental.getTime() <= now.getTime()) return 'incremental';
  return null;
}
