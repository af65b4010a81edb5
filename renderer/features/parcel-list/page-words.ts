// Where a page of the parcel list stands, in words: "1–50 of 3,000", or "17 parcels" when one page holds them all.

export function pageWords(offset: number, rows: number, total: number): string {
  const n = (x: number) => x.toLocaleString('en-US');
  if (offset === 0 && rows >= total) return `${n(total)} parcel${total === 1 ? '' : 's'}`;
  return `${n(offset + 1)}–${n(offset + rows)} of ${n(total)}`;
}
