import { copyText } from './clipboard.ts';

const CONFIRM_MS = 2_000;

export interface VersionItemElements {
  item: HTMLButtonElement;
  value: HTMLElement;
  state: HTMLElement;
  announce: (text: string) => void;
}

/**
 * The menu item that shows the client's version and copies exactly that string when activated
 * (click, Enter or Space: it is a real button). The item says "Copied" for a moment; screen
 * readers hear it through the page's polite live region. The menu stays open so the
 * confirmation can be seen.
 */
export function setupVersionItem(version: string, elements: VersionItemElements): void {
  const { item, value, state, announce } = elements;
  value.textContent = version;
  item.setAttribute('aria-label', `Version ${version}, copy to clipboard`);
  item.title = 'Copy the version to the clipboard';
  let timer: ReturnType<typeof setTimeout> | undefined;

  item.addEventListener('click', async () => {
    const copied = await copyText(version);
    state.textContent = copied ? 'Copied' : 'Copy failed';
    item.dataset['copyState'] = copied ? 'copied' : 'failed';
    announce(copied ? `Copied ${version} to the clipboard` : 'Could not copy the version');
    clearTimeout(timer);
    timer = setTimeout(() => {
      state.textContent = 'Copy';
      delete item.dataset['copyState'];
    }, CONFIRM_MS);
  });
}
