import { readFileSync } from 'node:fs';

// What every benchmark here needs: its round counts from the environment, medians, and the CPU
// time of the commands it ran. One copy, so every `npm run bench` figure is computed alike.

/** The middle value (the mean of the two middle ones for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A positive integer from the environment (`BENCH_ROUNDS=20`), else `fallback`; anything else is an error. */
export function positiveEnv(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${name} must be a positive integer`);
  return value;
}

/** CPU time (user + sys, in clock ticks) of this process's waited-for children so far. */
export function childCpuTicks(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  // After "pid (comm) ": state is field 3, so cutime (16) and cstime (17) are at 13 and 14.
  return Number(fields[13]) + Number(fields[14]);
}
