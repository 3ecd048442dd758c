import { isNewVersion } from './new-version.ts';

/** What the last check found; kept on the notice as `data-state` for tools and tests. */
export type CheckState = 'checking' | 'current' | 'new-version' | 'unavailable';

const TIMEOUT_MS = 5_000;
/** Re-check when the tab comes back, but not more often than this. */
const RECHECK_MS = 60_000;

export interface UpdateNoticeOptions {
  clientVersion: string;
  notice: HTMLElement;
  reload: HTMLButtonElement;
  dismiss: HTMLButtonElement;
  announce: (text: string) => void;
  url?: string;
}

/**
 * The quiet "a new version is available, reload" notice: reads `/api/version` once on load, and
 * again when the tab becomes visible after a while (a deploy usually happens while the app sits
 * in a background tab). Any failure (network, status, not JSON, a timeout) is silent: the notice
 * is a courtesy and must never get in the way.
 */
export function startUpdateNotice(options: UpdateNoticeOptions): void {
  const { notice, clientVersion } = options;
  let lastCheck = 0;
  let dismissed = false;

  const check = async () => {
    lastCheck = Date.now();
    notice.dataset['state'] = 'checking' satisfies CheckState;
    const server = await fetchServerVersion(options.url ?? '/api/version');
    if (server === undefined) {
      notice.dataset['state'] = 'unavailable' satisfies CheckState;
      return;
    }
    const newer = isNewVersion(clientVersion, server);
    notice.dataset['state'] = (newer ? 'new-version' : 'current') satisfies CheckState;
    if (newer && notice.hidden && !dismissed) {
      notice.hidden = false;
      options.announce('A new version is available. Reload to update.');
    }
    if (!newer) notice.hidden = true;
  };

  options.reload.addEventListener('click', () => location.reload());
  options.dismiss.addEventListener('click', () => {
    dismissed = true;
    notice.hidden = true;
  });
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && Date.now() - lastCheck > RECHECK_MS) void check();
  });
  void check();
}

async function fetchServerVersion(url: string): Promise<unknown> {
  try {
    const response = await fetch(url, {
      cache: 'no-store',
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!response.ok) return undefined;
    const body: unknown = await response.json();
    return body && typeof body === 'object' && 'version' in body ? body.version : undefined;
  } catch {
    return undefined;
  }
}
