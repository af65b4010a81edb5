// What a filter box above a column of the attribute table means, typed as a person would: a word to look for
// ("clay"), an exact value ("=clay"), a number to be below or above ("<5", ">2.5"), empty ("=") or filled ("*").
// One box a column: the same few signs for every column, said in the box's tooltip (FILTER_HINT).
import type { TableFilter } from '../../../core/api.ts';

export const FILTER_HINT = 'Contains this text; =text: exactly; <5 or >5: below or above a number; = alone: empty; * alone: not empty';

/** The filter a box's text asks for on `column`, or null for an empty box. */
export function parseFilterText(column: string, text: string): TableFilter | null {
  const t = text.trim();
  if (t === '') return null;
  if (t === '=') return { column, op: 'empty' };
  if (t === '*') return { column, op: 'notEmpty' };
  const cmp = /^([<>])\s*([+-]?(\d+(\.\d*)?|\.\d+))$/.exec(t);
  if (cmp) return { column, op: cmp[1] === '<' ? 'lt' : 'gt', value: Number(cmp[2]) };
  if (t.startsWith('=')) return { column, op: 'equals', value: t.slice(1).trim() };
  return { column, op: 'contains', value: t };
}

/** Every box's filter, in the columns' order. */
export const filtersOf = (boxes: Readonly<Record<string, string>>): TableFilter[] =>
  Object.entries(boxes).map(([column, text]) => parseFilterText(column, text)).filter((f): f is TableFilter => f !== null);
