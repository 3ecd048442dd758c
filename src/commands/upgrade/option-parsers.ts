import { InvalidArgumentError } from 'commander';

/** A repeatable flag: each value added to the ones before. */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

export function positiveInt(value: string): number {
  const n = wholeNumber(value);
  if (n < 1) throw new InvalidArgumentError('expected a whole number above 0');
  return n;
}

export function wholeNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) {
    throw new InvalidArgumentError('expected a whole number');
  }
  return n;
}
