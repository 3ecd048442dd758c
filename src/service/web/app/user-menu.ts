export interface UserMenuElements {
  /** The menu button: `aria-haspopup="menu"`, `aria-expanded`, `aria-controls` the menu. */
  button: HTMLButtonElement;
  /** The `role="menu"` element, hidden while closed. */
  menu: HTMLElement;
}

/**
 * The WAI-ARIA menu button pattern (https://www.w3.org/WAI/ARIA/apg/patterns/menu-button/):
 * Enter, Space or ArrowDown on the button open the menu and focus its first item (ArrowUp: the
 * last); ArrowUp/ArrowDown/Home/End move between items; Escape closes and puts focus back on the
 * button; Tab closes and moves on from the button; a click outside closes.
 */
export function setupUserMenu({ button, menu }: UserMenuElements): { close(): void } {
  const items = () => Array.from(menu.querySelectorAll<HTMLElement>('[role="menuitem"]'));
  const isOpen = () => button.getAttribute('aria-expanded') === 'true';

  const open = (focus: 'first' | 'last') => {
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    const list = items();
    (focus === 'first' ? list[0] : list[list.length - 1])?.focus();
  };
  const close = (returnFocus: boolean) => {
    if (!isOpen()) return;
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
    if (returnFocus) button.focus();
  };

  // Enter and Space reach here as the native button's click.
  button.addEventListener('click', () => (isOpen() ? close(true) : open('first')));
  button.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      open(event.key === 'ArrowDown' ? 'first' : 'last');
    } else if (event.key === 'Escape' && isOpen()) {
      event.preventDefault();
      close(true);
    }
  });

  menu.addEventListener('keydown', (event) => {
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    const move = (index: number) => {
      event.preventDefault();
      list[(index + list.length) % list.length]?.focus();
    };
    switch (event.key) {
      case 'Escape':
        event.preventDefault();
        close(true);
        break;
      case 'ArrowDown':
        move(at + 1);
        break;
      case 'ArrowUp':
        move(at < 0 ? -1 : at - 1);
        break;
      case 'Home':
        move(0);
        break;
      case 'End':
        move(-1);
        break;
      case 'Tab':
        // Focus goes back to the button first, so the browser's Tab moves on from there.
        close(true);
        break;
    }
  });

  document.addEventListener('pointerdown', (event) => {
    const target = event.target as Node | null;
    if (isOpen() && target && !menu.contains(target) && !button.contains(target)) close(false);
  });

  return { close: () => close(false) };
}
