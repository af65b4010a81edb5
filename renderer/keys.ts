// The app's single-key shortcuts (D, P, M, N, T, Z, B, /…) are document listeners: a key typed into a form field is
// the field's, never a shortcut. One test for "this key press belongs to a field", shared by every listener.

/** Whether `target` is a form field (input, textarea or select): keys pressed there are text, not shortcuts. */
export const isField = (target: EventTarget | null): target is HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement =>
  target instanceof HTMLInputElement || target instanceof HTMLTextAreaElement || target instanceof HTMLSelectElement;
