// A finished polygon that crosses itself, being fixed (features/draw/DraftFix.tsx, useDraftLayer.ts): whether the
// user chose to split it into its valid parts, as plain data. The choice holds for the very ring it was made for: a
// vertex moved since makes a new ring, and the choice lapses.
import { useMemo } from 'react';
import { create } from 'zustand';
import { validParts } from '../../../core/parcels/fix-polygon.ts';
import { useApp, type Position2 } from '../../store.ts';

export const useDraftFix = create<{ splitOf: Position2[] | null }>(() => ({ splitOf: null }));

/** The finished draft's valid parts (core's validParts, within the account's limit), or null when it has none. */
export function useParts(): Position2[][] | null {
  const ring = useApp((s) => s.draft);
  const drawn = useApp((s) => s.drawn);
  const limit = useApp((s) => s.account?.parcelLimit ?? Infinity);
  return useMemo(() => (drawn ? validParts(ring, limit) : null), [ring, drawn, limit]);
}

/** The parts the draft is to be saved as, when the user chose to split it; null otherwise. */
export function useSplit(): Position2[][] | null {
  const ring = useApp((s) => s.draft);
  const splitOf = useDraftFix((s) => s.splitOf);
  const parts = useParts();
  return splitOf === ring ? parts : null;
}

export const chooseSplit = (split: boolean) => useDraftFix.setState({ splitOf: split ? useApp.getState().draft : null });
