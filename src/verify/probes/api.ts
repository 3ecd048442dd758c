import { type HttpProbeOptions, readApiVersion } from '../../version-endpoint/api-version.ts';
import type { ProbeResult } from '../types.ts';

export type { HttpProbeOptions } from '../../version-endpoint/api-version.ts';

/** The API's row: what its version endpoint said (`version-endpoint/`, shared with upgrade). */
export async function probeApi(url: string, options: HttpProbeOptions): Promise<ProbeResult> {
  return { name: 'api', ...(await readApiVersion(url, options)) };
}
