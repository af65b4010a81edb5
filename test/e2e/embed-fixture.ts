// An account for the embedded-map tests, created through the running service's HTTP API like an integrator would:
// ten parcels near Córdoba with metadata of the spec's shapes (a key with a space included), a rotation history,
// an almond orchard's trees, and a second account whose parcels must never show up.
import type { Store } from '../../service/store/store.ts';
import { fieldPolygon, orchardTrees } from '../../service/demo-data.ts';
import { seededRandom as rng } from '../../core/random.ts';

export interface Account { id: string; account_email: string; embedded_url: string; account_access: string }
export interface SeededParcel { id: number; hectares: number; metadata: Record<string, string> }
export interface Seeded {
  organizationId: string;
  apiKey: string;
  account: Account;
  other: Account;
  parcels: Map<string, SeededParcel>;
  plants: number;
}

type Crop = { name: string; variety?: string; family?: string; sowing: string; campaign?: string; is_active: boolean };
interface Spec { name: string; metadata: Record<string, string>; crops: Crop[]; point?: boolean }

const wheat: Crop = { name: 'Wheat', variety: 'Soissons', family: 'Poaceae', sowing: '2025-10-20', campaign: '2025/26', is_active: true };

/** Grid order: four columns, west to east, then north to south. */
export const SPECS: Spec[] = [
  {
    name: 'North Field', metadata: { 'Supplier ID': 'S-12', region: 'Andalucía', contract_year: '2024', crop_type: 'wheat', certification: 'organic' },
    // The current crop is the active entry with the newest sowing: not the past sunflower, not the older barley left active.
    crops: [{ name: 'Sunflower', family: 'Asteraceae', sowing: '2024-03-01', is_active: false }, { name: 'Barley', family: 'Poaceae', sowing: '2024-10-01', is_active: true }, wheat],
  },
  { name: 'Olive Grove East', metadata: { 'Supplier ID': 'S-12', region: 'Andalucía', contract_year: '2023', crop_type: 'olive', certification: 'organic' }, crops: [{ name: 'Olive', variety: 'Picual', family: 'Oleaceae', sowing: '2015-02-10', is_active: true }] },
  { name: 'Almond Terrace', metadata: { 'Supplier ID': 'S-7', region: 'Andalucía', contract_year: '2024', crop_type: 'almond', certification: 'GlobalG.A.P.' }, crops: [{ name: 'Almond', variety: 'Guara', family: 'Rosaceae', sowing: '2019-02-15', is_active: true }] },
  { name: 'River Meadow', metadata: { 'Supplier ID': 'S-12', region: 'Andalucía', contract_year: '2024', crop_type: 'barley', certification: 'integrated' }, crops: [{ name: 'Barley', variety: 'Planet', family: 'Poaceae', sowing: '2025-11-02', is_active: true }] },
  { name: 'Vineyard Hill', metadata: { 'Supplier ID': 'S-31', region: 'Andalucía', contract_year: '2022', crop_type: 'vineyard', certification: 'organic' }, crops: [{ name: 'Grapevine', variety: 'Tempranillo', family: 'Vitaceae', sowing: '2012-03-20', is_active: true }] },
  { name: 'South Fallow', metadata: { 'Supplier ID': 'S-7', region: 'Andalucía', contract_year: '2024', crop_type: 'fallow', certification: 'none' }, crops: [] },
  { name: 'Sunflower Flats', metadata: { 'Supplier ID': 'S-31', region: 'Andalucía', contract_year: '2024', crop_type: 'sunflower', certification: 'integrated' }, crops: [{ name: 'Sunflower', family: 'Asteraceae', sowing: '2026-03-15', is_active: true }] },
  {
    // furrow_ref: the sync engine's key; the map must neither show it nor filter on it.
    name: 'Mill Lane', metadata: { 'Supplier ID': 'S-12', region: 'Andalucía', contract_year: '2025', crop_type: 'wheat', certification: 'none', furrow_ref: 'local-7f3a' },
    crops: [{ name: 'Durum wheat', variety: 'Amilcar', family: 'Poaceae', sowing: '2025-11-10', is_active: true }],
  },
  { name: 'Cork Oak Edge', metadata: { region: 'Andalucía', crop_type: 'pasture', certification: 'organic' }, crops: [{ name: 'Pasture mix', sowing: '2023-09-01', is_active: true }] },
  { name: 'Seed Plot', metadata: { 'Supplier ID': 'S-7', region: 'Andalucía', contract_year: '2025', crop_type: 'trial' }, crops: [], point: true },
];

const ORIGIN = { lon: -4.79, lat: 37.895 };

async function call<T>(url: string, method: string, headers: Record<string, string>, body?: unknown): Promise<T> {
  const res = await fetch(url, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${method} ${url} → ${res.status}: ${text.slice(0, 400)}`);
  return (text ? JSON.parse(text) : undefined) as T;
}

export async function createAccount(base: string, apiKey: string, email: string): Promise<Account> {
  return call<Account>(`${base}/api/accounts/`, 'POST', { 'x-api-key': apiKey }, { account_email: email });
}

/** `store` is the service's own store, opened by the test: the operator's steps (organization, plant import). */
export async function seedEmbedAccount(base: string, store: Store): Promise<Seeded> {
  const { organization_id: organizationId, api_key: apiKey } = await store.organizations.create('Embed Test Co-op');
  const account = await createAccount(base, apiKey, 'grower@embed.example');
  const other = await createAccount(base, apiKey, 'neighbour@embed.example');
  const rand = rng(4242);
  const rings: number[][][][] = [];
  const parcels = SPECS.map((s, i) => {
    const lon = ORIGIN.lon + (i % 4) * 0.0085 + (rand() - 0.5) * 0.001;
    const lat = ORIGIN.lat - Math.floor(i / 4) * 0.0068 + (rand() - 0.5) * 0.001;
    if (s.point) return { name: s.name, metadata: s.metadata, geom: { type: 'Feature', properties: { metadata: { hectares: 2.5 } }, geometry: { type: 'Point', coordinates: [lon, lat] } } };
    const ring = fieldPolygon(lon, lat, 10 + rand() * 10, rand, 5 + (i % 3));
    rings[i] = ring;
    return { name: s.name, metadata: s.metadata, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: ring } } };
  });
  const headers = { 'x-api-key': apiKey, 'service-account': account.id };
  const farm = await call<{ id: number; parcels: { id: number; properties: { name: string; hectares: number } }[] }>(
    `${base}/api/farms/`, 'POST', headers, { farm: { name: 'Cortijo El Encinar' }, parcels });
  const byName = new Map<string, SeededParcel>();
  farm.parcels.forEach((p, i) => byName.set(p.properties.name, { id: p.id, hectares: p.properties.hectares, metadata: SPECS[i]!.metadata }));

  for (const s of SPECS) {
    for (const c of s.crops) {
      await call(`${base}/api/crops/`, 'POST', headers, {
        parcel: byName.get(s.name)!.id, name: c.name, variety: c.variety ?? null, campaign: c.campaign ?? null, sowing: c.sowing,
        is_active: c.is_active, ...(c.family ? { family: { name: c.family } } : {}),
      });
    }
  }

  const almond = SPECS.findIndex((s) => s.name === 'Almond Terrace');
  // Every third tree of every third row: an orchard across the whole parcel, a few hundred plants.
  const trees = orchardTrees(rings[almond]!, rand).filter((t) => (t.info.row as number) % 3 === 0 && (t.info.tree as number) % 3 === 0);
  await store.plants.import(organizationId, account.id, {
    type: 'FeatureCollection',
    features: trees.map((t) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: t.point }, properties: { shape: { type: 'Polygon', coordinates: t.shape }, info: t.info, parcel: byName.get('Almond Terrace')!.id } })),
  });

  // The neighbour's parcel sits among ours and shares a Supplier ID: it must appear neither unfiltered nor filtered.
  await call(`${base}/api/farms/`, 'POST', { 'x-api-key': apiKey, 'service-account': other.id }, {
    farm: { name: 'Neighbour farm' },
    parcels: [{ name: "Neighbour's field", metadata: { 'Supplier ID': 'S-12' }, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: fieldPolygon(ORIGIN.lon + 0.0127, ORIGIN.lat - 0.0034, 4, rand) } } }],
  });
  return { organizationId, apiKey, account, other, parcels: byName, plants: trees.length };
}

/** Names of the seeded parcels whose metadata has every given pair. */
export const expectedNames = (seeded: Seeded, where: Record<string, string> = {}): string[] =>
  [...seeded.parcels].filter(([, p]) => Object.entries(where).every(([k, v]) => p.metadata[k] === v)).map(([n]) => n).sort();
