// The app's single-key shortcuts (D, P, M, N, T, Z, B, /…) are document listeners: a key typed into a form field is
// the field's, never a shortcut. One test for "this key press belongs to a field", shared by every listener.

/** Whether `target` is a form field (input, textarea or select): keys pressed there are text, not shortcuts. */
export const isField = (target: EventTarget | null): target is HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement =>
  target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;

/**
 * Whether Enter pressed on `target` is already the target's own: a field's, or a control's that Enter activates (a
 * button, a link, a details summary). The map's Enter (finish the polygon, save the shape) waits for the others: a
 * Cancel button pressed with Enter must cancel, not save first.
 */
export const ownsEnter = (target: EventTarget | null): boolean =>
  isField(target) || (target instanceof Element && target.closest('button, a[href], summary, [role=button]') !== null);
