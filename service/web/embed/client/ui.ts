// The page around the map: the control card (counts, filters, layers, legend, tooltip fields), the hover
// tooltip, the detail panel and the status messages.
import { append, count, h, hectares, metaText } from './dom.ts';
import type { CurrentCrop, ParcelProps } from './types.ts';

export interface LegendEntry { category: string; color: string; count: number }
export interface AreaEntry { label: string; parcels: number; hectares: number }

export interface CardOptions {
  /** Start folded (a small iframe): the map comes first, the card opens on demand. */
  folded: boolean;
  shown: number;
  total: number;
  hectares: number;
  filters: [string, string][];
  legend: LegendEntry[];
  /** The places the parcels lie in, the one shown first at the top; empty when they all lie together. */
  areas: AreaEntry[];
  /** An area's index, or null for all parcels. */
  onArea(index: number | null): void;
  plants: number;
  fields: string[];
  enabledFields: ReadonlySet<string>;
  onPlants(visible: boolean): void;
  onBasemap(visible: boolean): void;
  onFields(fields: Set<string>): void;
}

function checkbox(id: string, label: string, checked: boolean, onChange: (checked: boolean) => void, note?: HTMLElement): HTMLLabelElement {
  const input = h('input', { type: 'checkbox', id, checked });
  input.addEventListener('change', () => onChange(input.checked));
  return h('label', { class: 'check', for: id }, input, h('span', {}, label), note);
}

/** The card in the map's top-left corner; a <details> element, so it folds away in a small iframe without script. */
export function renderCard(root: HTMLElement, o: CardOptions): { setBasemapOffline(): void } {
  const parcelsText = o.shown === o.total ? `${count(o.shown)} parcel${o.shown === 1 ? '' : 's'}` : `${count(o.shown)} of ${count(o.total)} parcels`;
  const card = h('details', { class: 'card', id: 'card', open: !o.folded },
    h('summary', { class: 'card__head' },
      h('span', { class: 'card__title' }, 'Parcels'),
      h('span', { class: 'card__summary', id: 'parcel-summary' }, `${parcelsText} · ${hectares(o.hectares)}`)));
  const body = h('div', { class: 'card__body' });
  card.append(body);

  if (o.filters.length) {
    body.append(h('div', { class: 'chips', 'aria-label': 'Filters' },
      h('span', { class: 'chips__label' }, 'Filtered by'),
      ...o.filters.map(([k, v]) => h('span', { class: 'chip', title: `${k} = ${v}` }, h('b', {}, k), ` ${v}`))));
  }

  if (o.areas.length) {
    const total = o.areas.reduce((n, a) => n + a.parcels, 0);
    const button = (label: string, parcels: number, ha: number, index: number | null) => {
      const b = h('button', { type: 'button', class: 'area' }, h('span', { class: 'area__name' }, label),
        h('span', { class: 'muted' }, `${count(parcels)} parcel${parcels === 1 ? '' : 's'} · ${hectares(ha)}`));
      b.addEventListener('click', () => o.onArea(index));
      return h('li', {}, b);
    };
    body.append(h('section', { class: 'section', id: 'areas' }, h('h3', {}, 'Areas'),
      h('ul', { class: 'areas' },
        ...o.areas.map((a, i) => button(a.label, a.parcels, a.hectares, i)),
        button('All parcels', total, o.areas.reduce((n, a) => n + a.hectares, 0), null))));
  }

  const basemapNote = h('span', { class: 'muted', id: 'basemap-note' });
  const layers = h('section', { class: 'section' }, h('h3', {}, 'Layers'));
  if (o.plants > 0) layers.append(checkbox('layer-plants', 'Plants', true, o.onPlants, h('span', { class: 'muted' }, ` ${count(o.plants)}`)));
  basemapNote.textContent = ' OpenStreetMap';
  const basemapBox = checkbox('layer-basemap', 'Basemap', true, o.onBasemap, basemapNote);
  layers.append(basemapBox);
  body.append(layers);

  if (o.legend.length) {
    body.append(h('section', { class: 'section' }, h('h3', {}, 'Current crop'),
      h('ul', { class: 'legend' }, ...o.legend.map((e) => {
        const swatch = h('span', { class: 'swatch', 'aria-hidden': 'true' });
        // CSSOM, not a style attribute: allowed by the CSP's style-src 'self'.
        swatch.style.setProperty('--swatch', e.color);
        return h('li', {}, swatch, h('span', { class: 'legend__name' }, e.category), h('span', { class: 'muted' }, count(e.count)));
      }))));
  }

  if (o.fields.length) {
    const enabled = new Set(o.enabledFields);
    const list = h('div', { class: 'fields', id: 'tooltip-fields' });
    o.fields.forEach((field, i) => {
      list.append(checkbox(`field-${i}`, field, enabled.has(field), (on) => {
        if (on) enabled.add(field);
        else enabled.delete(field);
        o.onFields(new Set(enabled));
      }));
    });
    body.append(h('section', { class: 'section' }, h('h3', {}, 'Show on hover'), list));
  }

  root.append(card);
  return {
    setBasemapOffline() {
      basemapNote.textContent = ' unavailable offline';
      const input = basemapBox.querySelector('input');
      if (input) input.checked = false;
    },
  };
}

export interface Tooltip { show(x: number, y: number, p: ParcelProps, fields: readonly string[]): void; hide(): void }

export function createTooltip(root: HTMLElement): Tooltip {
  const el = h('div', { class: 'tooltip', id: 'tooltip', role: 'tooltip', hidden: true });
  root.append(el);
  return {
    show(x, y, p, fields) {
      el.replaceChildren(h('div', { class: 'tooltip__name' }, p.name));
      if (fields.length) {
        el.append(h('dl', { class: 'tooltip__fields' }, ...fields.flatMap((f) => [h('dt', {}, f), h('dd', {}, metaText(p.metadata[f]))])));
      }
      el.hidden = false;
      // Keep it inside the frame: flip to the other side of the pointer near the right and bottom edges.
      const { width, height } = el.getBoundingClientRect();
      const bounds = root.getBoundingClientRect();
      const left = x + 14 + width > bounds.width ? x - 14 - width : x + 14;
      const top = y + 14 + height > bounds.height ? y - 14 - height : y + 14;
      el.style.transform = `translate(${Math.max(4, left)}px, ${Math.max(4, top)}px)`;
    },
    hide() {
      el.hidden = true;
    },
  };
}

function cropBlock(crop: CurrentCrop | null): HTMLElement {
  if (!crop) return h('p', { class: 'muted', id: 'panel-crop' }, 'No current crop');
  const rows: [string, string | null][] = [
    ['Family', crop.family], ['Variety', crop.variety], ['Campaign', crop.campaign], ['Sown', crop.sowing],
  ];
  return h('div', { id: 'panel-crop' },
    h('p', { class: 'panel__crop' }, crop.name ?? 'Unnamed crop'),
    h('dl', { class: 'pairs' }, ...rows.filter(([, v]) => v).flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v!)])));
}

export interface Panel { element: HTMLElement; open(p: ParcelProps): void; close(): void; isOpen(): boolean }

/** The detail panel: every metadata pair, the area and the current crop. Escape or × closes it. */
export function createPanel(root: HTMLElement, onClose: () => void, onZoom: () => void): Panel {
  const title = h('h2', { id: 'panel-title' });
  const close = h('button', { type: 'button', class: 'panel__close', 'aria-label': 'Close details' }, '×');
  const body = h('div', { class: 'panel__body' });
  const panel = h('aside', { class: 'panel', id: 'panel', hidden: true, 'aria-labelledby': 'panel-title', tabindex: '-1' },
    h('header', { class: 'panel__head' }, title, close), body);
  close.addEventListener('click', onClose);
  root.append(panel);
  return {
    element: panel,
    open(p) {
      title.textContent = p.name;
      const entries = Object.entries(p.metadata);
      const zoom = h('button', { type: 'button', class: 'link' }, 'Zoom to parcel');
      zoom.addEventListener('click', onZoom);
      body.replaceChildren(
        h('p', { class: 'panel__area' }, h('span', { class: 'big', id: 'panel-area' }, hectares(p.hectares)), zoom),
        h('h3', {}, 'Current crop'),
        cropBlock(p.crop),
        h('h3', {}, `Metadata${entries.length ? ` (${entries.length})` : ''}`),
        entries.length
          ? h('dl', { class: 'pairs', id: 'panel-metadata' }, ...entries.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, metaText(v))]))
          : h('p', { class: 'muted', id: 'panel-metadata' }, 'No metadata'),
      );
      panel.hidden = false;
    },
    close() {
      panel.hidden = true;
    },
    isOpen: () => !panel.hidden,
  };
}

export function showStatus(root: HTMLElement, kind: 'loading' | 'empty' | 'error', title: string, text = ''): void {
  let el = root.querySelector<HTMLElement>('#status');
  if (!el) {
    el = h('div', { id: 'status', role: 'status' });
    root.append(el);
  }
  el.className = `status status--${kind}`;
  el.replaceChildren(h('strong', {}, title));
  if (text) append(el, h('span', {}, text));
  el.hidden = false;
}

export function hideStatus(root: HTMLElement): void {
  const el = root.querySelector<HTMLElement>('#status');
  if (el) el.hidden = true;
}
