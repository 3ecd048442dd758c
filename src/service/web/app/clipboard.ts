/**
 * Copy text to the clipboard. Uses the asynchronous Clipboard API where the page has it (https
 * and http://localhost are secure contexts); where it is missing (plain http on another host, old
 * browsers) or refuses, falls back to `document.execCommand('copy')` with the text put on the
 * clipboard from a one-off `copy` listener, which needs no hidden textarea and leaves the
 * user's selection and focus alone. Resolves to whether the text was copied.
 */
export async function copyText(text: string): Promise<boolean> {
  const clipboard = navigator.clipboard as Clipboard | undefined;
  if (clipboard && typeof clipboard.writeText === 'function') {
    try {
      await clipboard.writeText(text);
      return true;
    } catch {
      // Permission refused or document not focused: the legacy path may still work.
    }
  }
  return copyWithCommand(text);
}

function copyWithCommand(text: string): boolean {
  let copied = false;
  const onCopy = (event: ClipboardEvent) => {
    if (!event.clipboardData) return;
    event.clipboardData.setData('text/plain', text);
    event.preventDefault();
    copied = true;
  };
  document.addEventListener('copy', onCopy, { capture: true });
  try {
    // execCommand is deprecated but is still the only copy path without the Clipboard API.
    return document.execCommand('copy') && copied;
  } catch {
    return false;
  } finally {
    document.removeEventListener('copy', onCopy, { capture: true });
  }
}
