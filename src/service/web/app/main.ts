import { CLIENT_VERSION } from './client-version.ts';
import { startUpdateNotice } from './update-notice.ts';
import { setupUserMenu } from './user-menu.ts';
import { setupVersionItem } from './version-item.ts';

// The page's markup is in index.html; this wires its behaviour. Plain DOM, no framework: one menu,
// one item and one notice do not need a component runtime (see docs/reference/reference-service.md, "Reference web client").

function byId<T extends HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`index.html has no #${id}`);
  return element as T;
}

const announcer = byId('announcer');
const announce = (text: string) => {
  // Clearing first makes a repeated message ("Copied" twice) be announced again.
  announcer.textContent = '';
  requestAnimationFrame(() => {
    announcer.textContent = text;
  });
};

setupUserMenu({ button: byId('user-menu-button'), menu: byId('user-menu') });
setupVersionItem(CLIENT_VERSION, {
  item: byId('version-item'),
  value: byId('client-version'),
  state: byId('copy-state'),
  announce,
});
startUpdateNotice({
  clientVersion: CLIENT_VERSION,
  notice: byId('update-notice'),
  reload: byId('update-reload'),
  dismiss: byId('update-dismiss'),
  announce,
});
