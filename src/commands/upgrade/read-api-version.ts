import { readApiVersion as readEndpoint } from '../../version-endpoint/api-version.ts';

/**
 * What the API reports over `GET {url}/api/version`, on any engine: the one reading every upgrade
 * takes the same way (the API is reached over HTTP, never through the engine).
 */
export async function readApiVersion(
  url: string,
  timeoutMs: number,
): Promise<{ version: string | undefined; minCliVersion: string | undefined; error: string | undefined }> {
  const result = await readEndpoint(url, { timeoutMs });
  return { version: result.version, minCliVersion: result.minCliVersion, error: result.error };
}
