// The metadata filter, with the embedded map's meaning (core/parcels/metadata-filter.ts): a key and a value add a
// condition; several values of one key show parcels with any of them, several keys parcels with all. The map then
// shows only matching parcels (the backend's `viewport` with the filter) and its banner says so (FilterBanner).
import { useState, type FormEvent } from 'react';
import { MAX_METADATA_FILTERS, MAX_METADATA_FILTER_KEY_LENGTH, MAX_METADATA_FILTER_VALUE_LENGTH, MAX_METADATA_FILTER_VALUES } from '../../../core/schemas/common.ts';
import { useApp } from '../../store.ts';
import { addCondition, removeCondition, useBrowse } from '../browse-store.ts';
import { OpenEmbeddedMap } from './OpenEmbeddedMap.tsx';

export function MetadataFilterForm() {
  const filter = useBrowse((s) => s.filter);
  const ready = useApp((s) => s.account !== null);
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const conditions = Object.entries(filter).flatMap(([k, vs]) => vs.map((v) => [k, v] as const));

  const add = (e: FormEvent) => {
    e.preventDefault();
    // The key as stored (the embedded map's '+' is only how a URL writes a space); the value as typed: it is compared
    // with the stored value's text, so " organic" is not "organic".
    const k = key.trim();
    if (!k) return setProblem('Type the metadata key to filter on, such as crop_type.');
    if ([...k].length > MAX_METADATA_FILTER_KEY_LENGTH) return setProblem(`A key has at most ${MAX_METADATA_FILTER_KEY_LENGTH} characters.`);
    if ([...value].length > MAX_METADATA_FILTER_VALUE_LENGTH) return setProblem(`A value has at most ${MAX_METADATA_FILTER_VALUE_LENGTH} characters.`);
    if (!(k in filter) && Object.keys(filter).length >= MAX_METADATA_FILTERS) return setProblem(`At most ${MAX_METADATA_FILTERS} keys at once: remove one first.`);
    if (conditions.length >= MAX_METADATA_FILTER_VALUES) return setProblem(`At most ${MAX_METADATA_FILTER_VALUES} values at once: remove one first.`);
    setProblem(null);
    addCondition(k, value);
    setValue('');
  };

  return (
    <section className="filter" aria-labelledby="filter-title">
      <h2 id="filter-title">Filter by metadata</h2>
      <form className="filter-form" onSubmit={add} aria-label="Add a metadata filter">
        {/* Named apart from the parcel editor's Key and Value fields, which can be on screen at the same time. */}
        <label>Key <input aria-label="Filter key" aria-invalid={problem !== null} aria-describedby={problem ? 'filter-problem' : undefined} value={key} onChange={(e) => setKey(e.target.value)} placeholder="crop_type" autoComplete="off" disabled={!ready} /></label>
        <label>Value <input aria-label="Filter value" aria-invalid={problem !== null} aria-describedby={problem ? 'filter-problem' : undefined} value={value} onChange={(e) => setValue(e.target.value)} placeholder="Wheat" autoComplete="off" disabled={!ready} /></label>
        <button type="submit" disabled={!ready} title="Show only parcels with this value (Enter)">Filter</button>
      </form>
      {problem ? <p id="filter-problem" className="error" role="alert">{problem}</p> : null}
      {conditions.length ? (
        <ul className="conditions" aria-label="Metadata filter">
          {conditions.map(([k, v]) => (
            <li key={`${k}\u0000${v}`}>
              <span>{k} = {v === '' ? '(empty)' : v}</span>
              <button type="button" aria-label={`Remove ${k} = ${v}`} title="Remove this condition" onClick={() => removeCondition(k, v)}>×</button>
            </li>
          ))}
        </ul>
      ) : <p className="muted">A key and its exact value, as on the embedded map: one key&apos;s values are alternatives, different keys must all match.</p>}
      <OpenEmbeddedMap />
    </section>
  );
}
