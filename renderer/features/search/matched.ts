// Why a search result matched when its name does not say so: the first metadata pair whose key or value holds one of
// the words typed (the mirror's search looks at names, then metadata values). Pure, tested beside it.

const words = (text: string): string[] => (text.normalize('NFKC').toLowerCase().match(/[\p{L}\p{N}_-]+/gu) ?? []);

/** "Supplier ID: S-77" for a search of "s-77" on a parcel named "Almond orchard"; null when the name shows the match. */
export function matchedMetadata(text: string, name: string, metadata: Readonly<Record<string, unknown>>): string | null {
  const typed = words(text);
  if (!typed.length) return null;
  const nameWords = words(name);
  if (typed.every((w) => nameWords.some((n) => n.startsWith(w)))) return null;
  for (const [k, v] of Object.entries(metadata)) {
    const value = String(v);
    const inValue = words(value);
    if (typed.some((w) => inValue.some((x) => x.startsWith(w)))) return `${k}: ${value}`;
  }
  return null;
}
