// Which metadata fields the tooltip shows, remembered in the browser. Storage can be refused (a third-party
// iframe with storage blocked throws on access): the toggles then still work, for this visit only.

const KEY = 'furrow.embed.tooltipFields.v1';

export function loadFields(): Set<string> {
  try {
    const raw = window.localStorage.getItem(KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : [];
    return new Set(Array.isArray(parsed) ? parsed.filter((x): x is string => typeof x === 'string') : []);
  } catch {
    return new Set();
  }
}

export function saveFields(fields: ReadonlySet<string>): void {
  try {
    window.localStorage.setItem(KEY, JSON.stringify([...fields]));
  } catch {
    // Storage refused or full: keep the choice in memory only.
  }
}
