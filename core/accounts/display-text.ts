// Text a service gives that the app shows as a name (an organization's name, an account's e-mail used as its label):
// a service is not trusted to send something fit to show. Controls (C0, C1), bidirectional overrides and isolates
// (which can make "gro@x" read as "x@org") and line separators are dropped, runs of white space folded, and the whole
// cut to `max` characters — a name is never megabytes, nor able to disguise itself.

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSHOWN = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ufeff]/g;

export function displayText(text: string, max = 200): string {
  const clean = text.replace(UNSHOWN, ' ').replace(/\s+/g, ' ').trim();
  const chars = [...clean];
  return chars.length <= max ? clean : `${chars.slice(0, max - 1).join('')}…`;
}
