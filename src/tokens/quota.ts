/** The unit of a quota window (contract C5: `N/day|N/hour|N/minute`). */
export type QuotaWindow = 'minute' | 'hour' | 'day';

/** At most `limit` requests per window. */
export interface Quota {
  readonly limit: number;
  readonly window: QuotaWindow;
}

export const WINDOW_MS: Readonly<Record<QuotaWindow, number>> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/** Keeps counters and headers in safe-integer range whatever an operator types. */
export const MAX_QUOTA_LIMIT = 1_000_000_000;

export class QuotaSyntaxError extends Error {}

/** Parses `N/minute`, `N/hour` or `N/day` (N a positive integer); anything else throws. */
export function parseQuota(text: string): Quota {
  const match = /^\s*(\d{1,10})\s*\/\s*(minute|hour|day)\s*$/i.exec(text);
  if (!match) throw new QuotaSyntaxError(`quota must look like N/minute, N/hour or N/day, got '${text}'`);
  const limit = Number(match[1]);
  if (limit < 1 || limit > MAX_QUOTA_LIMIT) throw new QuotaSyntaxError(`quota must allow 1 to ${MAX_QUOTA_LIMIT} requests, got ${match[1]}`);
  return { limit, window: match[2]!.toLowerCase() as QuotaWindow };
}

export function formatQuota(quota: Quota): string {
  return `${quota.limit}/${quota.window}`;
}

export function isQuotaWindow(value: string): value is QuotaWindow {
  return value === 'minute' || value === 'hour' || value === 'day';
}
