/**
 * The image digest each artifact of a deployment runs, by the name its metrics series carries: a
 * role of a shared image (a scheduler, a migration) by its role, so each role is judged on the
 * digest its own containers run, never on another role's. The first reading of each wins (verify
 * lists the probed reading before the engine's).
 */
export function runningDigests(
  readings: readonly { name: string; role?: string; digest?: string }[],
): Record<string, string> {
  const running: Record<string, string> = {};
  for (const r of readings) if (r.digest) running[r.role ?? r.name] ??= r.digest;
  return running;
}
