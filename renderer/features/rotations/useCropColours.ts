// The colours of the shown account's crop families and active crops, read again with every change of the account: a
// crop added, renamed or closed can take or free a colour. Assigned among all of the account's names, never only those
// in view, so a family or crop keeps its colour as the map moves and filters, and the families have the colours the
// embedded map gives them (it assigns among the same families with the same rule).
import { useEffect } from 'react';
import type { AppApi } from '../../backend.ts';
import { useApp } from '../../store.ts';
import { cropColours } from '../../../core/crops/family-colours.ts';
import { setRotations, useRotations } from './rotation-store.ts';

const same = (a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>) => a.size === b.size && [...a].every(([k, v]) => b.get(k) === v);

export function useCropColours(api: AppApi): void {
  const account = useApp((s) => s.account?.id);
  const version = useApp((s) => s.version);
  useEffect(() => {
    if (!account) return;
    let live = true;
    api.cropColourNames({ account }).then((n) => {
      if (!live) return;
      const colours = { family: cropColours(n.families), crop: cropColours(n.crops, { families: false }) };
      const now = useRotations.getState().colours;
      // Most changes (a parcel moved, renamed) change no name: the map is not drawn again for them.
      if (!same(now.family, colours.family) || !same(now.crop, colours.crop)) setRotations({ colours });
    }, () => {});
    return () => { live = false; };
  }, [api, account, version]);
}
