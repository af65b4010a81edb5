// Where the keyboard's focus goes after something the user did replaced what had it (a form saved and gone, a tool
// started): the element that comes in its place, once React has drawn it — never the page's body, where a keyboard
// or screen reader user would have to start again from the top.

/** How long an element is waited for (the panel may first read the saved parcel from the backend). */
const WAIT_MS = 3000;
const STEP_MS = 25;

/**
 * Focuses the first element matching `selector` as soon as there is one (not inert), within a few seconds; gives up
 * if the user moved the focus meanwhile (to anything but the body), unless `force` (a closing dialog gave the focus
 * back to its opener first).
 */
export function focusSoon(selector: string, force = false): void {
  const asked = document.activeElement;
  const until = Date.now() + WAIT_MS;
  const attempt = () => {
    const now = document.activeElement;
    if (!force && now !== asked && now !== document.body && now !== null) return; // the user went elsewhere meanwhile
    const el = document.querySelector<HTMLElement>(selector);
    if (el && !el.closest('[inert]')) { el.focus(); return; }
    if (Date.now() < until) setTimeout(attempt, STEP_MS);
  };
  requestAnimationFrame(attempt);
}

/** The side panel's heading of a saved parcel (ParcelPanel.tsx), once it shows that parcel. */
export const savedParcel = (id: string): string => `#panel-title[data-parcel="${CSS.escape(id)}"]`;
