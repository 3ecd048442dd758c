import type { Plugin } from 'vite';
import { InternalError } from '../../../errors.ts';
import { escapeHtml } from './client-version.ts';

/** The global the app reads its own version from; replaced at build time (see app/client-version.ts). */
export const VERSION_GLOBAL = '__SERVICE_CLIENT_VERSION__';

/**
 * Bakes one version into a web build, in the three places it is read:
 * - the bundle (the user menu shows it, the reload notice compares with it),
 * - `<meta name="service-client-version">` in index.html,
 * - `version.json` (`{"version": ...}`), which `release verify` reads over HTTP.
 *
 * `version` must already be validated by `clientVersionOf`; it is still escaped for HTML and
 * serialised as JSON, never pasted in raw.
 */
export function serviceVersionPlugin(version: string): Plugin {
  return {
    name: 'service-client-version',
    config: () => ({ define: { [VERSION_GLOBAL]: JSON.stringify(version) } }),
    transformIndexHtml(html) {
      const meta = `<meta name="service-client-version" content="${escapeHtml(version)}" />`;
      // Right after the charset declaration, which must stay first in <head>.
      const charset = /<meta charset="[^"]*"\s*\/?>/i.exec(html);
      if (!charset) throw new InternalError('WEB_INDEX_NO_CHARSET', 'index.html has no <meta charset>');
      const at = charset.index + charset[0].length;
      return `${html.slice(0, at)}\n    ${meta}${html.slice(at)}`;
    },
    generateBundle() {
      this.emitFile({
        type: 'asset',
        fileName: 'version.json',
        source: `${JSON.stringify({ version })}\n`,
      });
    },
  };
}
