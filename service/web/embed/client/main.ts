// The embedded map page: reads auth_id and metadata[<key>] filters from its own URL, fetches the account's parcels
// and plants from data/… next to it, and wires the map to the card, the tooltip and the detail panel.
import 'ol/ol.css';
import './embed.css';
import type Feature from 'ol/Feature.js';
import type { Extent } from 'ol/extent.js';
import { byId } from './dom.ts';
import { areaLabel, areasOf } from './areas.ts';
import { NO_CROP, categoryColor, colourFamilies } from './colors.ts';
import { createHook, type HookState } from './hook.ts';
import { insideArea, openArea } from './layout.ts';
import { createMap, cropCategory, loadParcels, loadPlants } from './map.ts';
import { loadFields, saveFields } from './prefs.ts';
import { createPanel, createTooltip, hideStatus, renderCard, showStatus, type LegendEntry } from './ui.ts';
import type { CurrentCrop, ErrorResponse, ParcelCollection, ParcelProps, Timings } from './types.ts';

class PageError extends Error {
  constructor(readonly title: string, message: string) {
    super(message);
  }
}

const timings: Partial<Timings> = { script_start: performance.now() };
const mark = (k: keyof Timings) => { timings[k] = Math.round(performance.now() * 10) / 10; };

async function getJson<T>(url: string): Promise<T> {
  // No cookies: the auth_id in the query is the only credential these routes accept.
  const res = await fetch(url, { credentials: 'omit', headers: { accept: 'application/json' } });
  const body = (await res.json().catch(() => null)) as unknown;
  if (!res.ok) {
    const msg = (body as ErrorResponse | null)?.message ?? `The service answered ${res.status}.`;
    throw new PageError(res.status === 404 ? 'Map link not valid' : 'Map unavailable', msg);
  }
  return body as T;
}

/** `metadata[<key>]=<value>` pairs of the page URL; URLSearchParams already reads '+' in a key as a space. */
function urlFilters(params: URLSearchParams): [string, string][] {
  const out: [string, string][] = [];
  for (const [k, v] of params) {
    const m = /^metadata\[(.+)\]$/s.exec(k);
    if (m) out.push([m[1]!, v]);
  }
  return out;
}

const props = (f: Feature): ParcelProps => f.getProperties() as unknown as ParcelProps;

function legendOf(features: Feature[]): LegendEntry[] {
  const counts = new Map<string, number>();
  for (const f of features) {
    const c = cropCategory(f.get('crop') as CurrentCrop | null);
    counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  return [...counts].map(([category, n]) => ({ category, count: n, color: categoryColor(category) }))
    .sort((a, b) => Number(a.category === NO_CROP) - Number(b.category === NO_CROP) || b.count - a.count || a.category.localeCompare(b.category));
}

function fieldsOf(features: Feature[]): string[] {
  const keys = new Set<string>();
  for (const f of features) for (const k of Object.keys(props(f).metadata)) keys.add(k);
  return [...keys].sort((a, b) => a.localeCompare(b));
}

async function start(root: HTMLElement, mapEl: HTMLElement, state: HookState): Promise<void> {
  const params = new URLSearchParams(window.location.search);
  const authId = params.get('auth_id');
  if (!authId) throw new PageError('Map link incomplete', 'This map link has no auth_id. Open the embedded_url exactly as it was given to you.');
  const filters = urlFilters(params);
  const query = new URLSearchParams({ auth_id: authId });
  for (const [k, v] of filters) query.append(`metadata[${k}]`, v);

  let card: ReturnType<typeof renderCard> | null = null;
  let basemapOffline = false;
  const pm = createMap({ target: mapEl, onBasemapOffline: () => { basemapOffline = true; card?.setBasemapOffline(); } });
  state.pm = pm;
  showStatus(root, 'loading', 'Loading parcels…');

  const [parcels, plants] = await Promise.all([
    getJson<ParcelCollection>(`data/parcels?${query}`),
    // The plants are a second layer: the parcels are still worth showing when they cannot be had.
    getJson<unknown>(`data/plants?${new URLSearchParams({ auth_id: authId })}`).catch(() => null),
  ]);
  mark('data_received');
  // Colours among the organization's families (the app's rule over the same names), and any family a parcel shows.
  colourFamilies([...(parcels.families ?? []), ...parcels.features.flatMap((f) => (f.properties.crop?.family ? [f.properties.crop.family] : []))]);
  const features = loadParcels(pm, parcels);
  const shownIds = new Set(features.map((f) => f.getId()));
  // Under a filter, only the plants of the parcels shown; otherwise all of them (some may have no parcel).
  const plantCount = plants ? loadPlants(pm, plants, (id) => filters.length === 0 || (id !== null && shownIds.has(id))) : 0;
  const areas = areasOf(features, parcels.farms ?? {});
  mark('features_read');

  const tooltip = createTooltip(root);
  const closePanel = () => {
    panel.close();
    state.selected = null;
    pm.setSelected(null);
  };
  const panel = createPanel(root, () => { closePanel(); mapEl.focus({ preventScroll: true }); }, () => {
    if (state.selected) pm.fit(state.selected.getGeometry()!.getExtent(), visibleArea(), { maxZoom: 18, animate: true });
  });
  // Fits aim at the part of the map the card and the open panel leave visible.
  const visibleArea = () => openArea(mapEl, [document.getElementById('card'), panel.isOpen() ? panel.element : null]);
  const showExtent = (extent: Extent, animate: boolean) => pm.fit(extent, visibleArea(), { animate });

  const fields = fieldsOf(features);
  let enabled = loadFields();
  const tooltipFields = () => fields.filter((f) => enabled.has(f));
  const compact = root.clientWidth <= 640 || root.clientHeight <= 420;
  card = renderCard(root, {
    folded: compact,
    shown: features.length, total: parcels.count, filters, plants: plantCount, fields, enabledFields: enabled,
    hectares: features.reduce((s, f) => s + props(f).hectares, 0),
    legend: legendOf(features),
    areas: areas.length > 1 ? areas.map((a) => ({ label: areaLabel(a), parcels: a.features.length, hectares: a.hectares })) : [],
    onArea: (i) => {
      closePanel();
      showExtent(i === null ? pm.parcels.getExtent() ?? areas[0]!.extent : areas[i]!.extent, true);
    },
    onPlants: (v) => pm.layers.plants.setVisible(v),
    onBasemap: (v) => pm.layers.basemap.setVisible(v),
    onFields: (next) => { enabled = next; saveFields(next); },
  });
  if (basemapOffline) card.setBasemapOffline();

  /** After the panel opens: when the parcel is (partly) under it or the card, move it into the open part, zooming out only if it cannot fit. */
  const reveal = (f: Feature) => {
    const area = visibleArea();
    const extent = f.getGeometry()!.getExtent();
    const a = pm.map.getPixelFromCoordinate([extent[0]!, extent[3]!]);
    const b = pm.map.getPixelFromCoordinate([extent[2]!, extent[1]!]);
    if (a && b && insideArea(mapEl, area, { left: a[0]!, top: a[1]!, right: b[0]!, bottom: b[1]! })) return;
    pm.fit(extent, area, { maxZoom: pm.map.getView().getZoom(), animate: true });
  };

  pm.map.on('pointermove', (e) => {
    const f = e.dragging ? null : pm.parcelAtPixel(e.pixel);
    pm.setHover(f);
    mapEl.classList.toggle('map--pointer', f !== null);
    if (f) tooltip.show(e.pixel[0]!, e.pixel[1]!, props(f), tooltipFields());
    else tooltip.hide();
  });
  mapEl.addEventListener('pointerleave', () => { pm.setHover(null); tooltip.hide(); });
  // The map takes keyboard focus when used with the pointer, so the arrow and +/- keys work right after.
  mapEl.addEventListener('pointerdown', () => {
    root.classList.remove('embed--keyboard');
    if (document.activeElement !== mapEl) mapEl.focus({ preventScroll: true });
  });
  // The focus ring is for keyboard users only; a click that focuses the map should not frame it.
  document.addEventListener('keydown', () => root.classList.add('embed--keyboard'), true);
  pm.map.on('singleclick', (e) => {
    const f = pm.parcelAtPixel(e.pixel);
    if (!f) return closePanel();
    state.selected = f;
    pm.setSelected(f);
    panel.open(props(f));
    reveal(f);
  });
  document.addEventListener('keydown', (e) => {
    if (e.key === 'Escape' && panel.isOpen()) {
      closePanel();
      mapEl.focus({ preventScroll: true });
    }
  });

  hideStatus(root);
  if (features.length === 0) {
    showStatus(root, 'empty', filters.length ? 'No parcels match these filters' : 'No parcels yet',
      filters.length ? 'Every filter must match: check the keys and values in the link.' : 'Parcels appear here once they are added to this account.');
    mark('first_render');
    return;
  }
  // The main area (all parcels when they lie together): shapes, not a continent of dots.
  showExtent(areas[0]!.extent, false);
  await new Promise<void>((resolve) => {
    pm.layers.parcels.once('postrender', () => resolve());
    pm.map.renderSync();
  });
  mark('first_render');
}

function main(): void {
  const root = byId('embed');
  const mapEl = byId('map');
  const state: HookState = { selected: null };
  const ready = start(root, mapEl, state).then(() => mark('ready'));
  ready.catch((err: unknown) => {
    const e = err instanceof PageError ? err : new PageError('Map unavailable', 'The map could not be loaded. Try again later.');
    showStatus(root, 'error', e.title, e.message);
  });
  window.__furrowEmbed = createHook(ready, timings, mapEl, state);
}

main();
