import { z } from 'zod';

const DURATION_PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The longest duration: 366 days. A deadline further away is no deadline a person keeps (and dates run out). */
export const MAX_DURATION_MS = 366 * UNIT_MS.d;

/**
 * A length of time: a number of milliseconds, or a string such as `"30s"`, `"5m"`,
 * `"2h"`. Parsed to milliseconds. `0` means "no limit"; at most 366 days.
 */
export const Duration = z
  .union([
    z.number().int().nonnegative().max(MAX_DURATION_MS, 'a duration is at most 366 days (0 means no limit)'),
    z.string().regex(DURATION_PATTERN, 'expected a duration such as 500ms, 30s, 5m, 2h or 1d'),
  ])
  .transform((value) => {
    if (typeof value === 'number') return value;
    const match = DURATION_PATTERN.exec(value.trim());
    const amount = Number(match?.[1]);
    const unit = match?.[2] as keyof typeof UNIT_MS;
    return Math.round(amount * UNIT_MS[unit]);
  })
  .refine((ms) => ms <= MAX_DURATION_MS, 'a duration is at most 366 days (0 means no limit)');
export type Duration = z.output<typeof Duration>;
