import { InvalidArgumentError } from 'commander';
import { IsoDateSchema } from '../domain/index.js';

/** Command-line value parsers: each turns bad input into commander's one-line error (exit 2). */
export function enumArg<T extends string>(schema: { safeParse: (v: unknown) => { success: boolean; data?: T } }, what: string) {
  return (value: string): T => {
    const parsed = schema.safeParse(value);
    if (!parsed.success || parsed.data === undefined) throw new InvalidArgumentError(`not a valid ${what}`);
    return parsed.data;
  };
}

export const parseDate = (value: string): string => {
  if (!IsoDateSchema.safeParse(value).success) throw new InvalidArgumentError('expected a date that exists, as YYYY-MM-DD');
  return value;
};

/** A whole number in [min, max]. */
export const intArg =
  (min: number, max: number, what = `a whole number from ${min} to ${max}`) =>
  (value: string): number => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`expected ${what}`);
    return n;
  };

export const parseShare = (value: string): number => {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 1) throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
};

/** An age such as 180d, 26w or 12h, in milliseconds. */
export const parseAge = (value: string): number => {
  const match = /^(\d+)([hdw])$/u.exec(value.trim());
  if (match === null) throw new InvalidArgumentError('expected an age such as 180d, 26w or 12h');
  const unit = { h: 3_600_000, d: 86_400_000, w: 604_800_000 }[match[2] as 'h' | 'd' | 'w'];
  return Number(match[1]) * unit;
};
