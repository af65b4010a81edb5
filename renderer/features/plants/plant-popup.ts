// The plant popup's content, built with DOM nodes and text (the detection's info is free JSON from the service:
// never markup).
import type { PlantShown } from '../browse-store.ts';
import { infoRows, squareMetres } from './plant-view.ts';

export function fillPlantPopup(el: HTMLElement, plant: PlantShown, close: () => void): void {
  el.replaceChildren();
  el.setAttribute('role', 'dialog');
  el.setAttribute('aria-label', `Plant ${plant.id}`);
  const head = document.createElement('div');
  head.className = 'plant-head';
  const title = document.createElement('strong');
  title.textContent = `Plant ${plant.id}`;
  const x = document.createElement('button');
  x.type = 'button';
  x.textContent = '×';
  x.title = 'Close (Esc)';
  x.setAttribute('aria-label', 'Close plant');
  x.addEventListener('click', close);
  head.append(title, x);
  const dl = document.createElement('dl');
  const rows: [string, string][] = [
    ['Crown area', squareMetres(plant.area)],
    ['Position', `${plant.at[0].toFixed(6)}, ${plant.at[1].toFixed(6)}`],
    ...infoRows(plant.info),
  ];
  for (const [k, v] of rows) {
    const dt = document.createElement('dt');
    dt.textContent = k;
    const dd = document.createElement('dd');
    dd.textContent = v;
    dd.dataset.field = `plant-${k}`;
    dl.append(dt, dd);
  }
  el.append(head, dl);
}
