import { openDb } from './store/db.ts';
import { dbFile, type ServiceConfig } from './config.ts';
import { createApiKey, createOrganization, findOrganizationByName, listApiKeys, revokeApiKey } from './store/organizations.ts';
import { createAccount, embeddedUrl, listAccounts } from './store/accounts.ts';
import { createFarm, listFarms } from './store/farms.ts';
import { createCrop } from './store/crops.ts';
import { importPlants } from './store/plants.ts';
import { signAccountAccess } from './store/tokens.ts';
import { fieldPolygon, orchardTrees } from './demo-data.ts';
import { seededRandom as rng } from '../core/random.ts';
import { createAdmin, deleteAdmin, listAdmins } from './store/admins.ts';
import { randomBytes } from 'node:crypto';
import type { Scope } from './store/scope.ts';

export const DEMO_ORG = 'Furrow Demo Co-op';
export const DEMO_EMAIL = 'grower@demo.furrow.example';
export const DEMO_ADMIN = 'admin@demo.furrow.example';

const REGIONS = [
  { farm: 'Finca El Olivar', lon: -4.78, lat: 37.88, region: 'Andalucía', crops: ['Durum wheat', 'Sunflower', 'Chickpea', 'Olive'] },
  { farm: 'Hof Sonnenfeld', lon: 11.02, lat: 52.21, region: 'Niedersachsen', crops: ['Winter wheat', 'Sugar beet', 'Rapeseed', 'Barley'] },
] as const;
const FAMILY: Record<string, string> = {
  'Durum wheat': 'Poaceae', 'Winter wheat': 'Poaceae', Barley: 'Poaceae', Sunflower: 'Asteraceae', Chickpea: 'Fabaceae',
  Olive: 'Oleaceae', 'Sugar beet': 'Amaranthaceae', Rapeseed: 'Brassicaceae', Almond: 'Rosaceae',
};

export interface DemoResult {
  credentials: { organization_id: string; api_key: string; account_id: string; account_access: string; embedded_url: string; service: string; admin_email: string; admin_password: string };
  banner: string;
}

/**
 * Loads the demo once (an organization, one connected account, two farms with crop rotations and an
 * almond orchard's trees). API keys are stored hashed, so every run issues a fresh demo key and revokes the last.
 */
export async function runDemo(config: ServiceConfig): Promise<DemoResult> {
  const db = openDb(dbFile(config.dataDir), { synchronous: config.synchronous });
  try {
    let org = findOrganizationByName(db, DEMO_ORG)?.id;
    if (!org) org = createOrganization(db, DEMO_ORG).organization_id;
    for (const k of listApiKeys(db, org)) if (!k.revoked) revokeApiKey(db, org, k.prefix);
    const { api_key } = createApiKey(db, org, 'demo');
    const account = listAccounts(db, org).find((a) => a.account_email === DEMO_EMAIL) ?? createAccount(db, org, DEMO_EMAIL);
    const scope: Scope = { organizationId: org, accountId: account.id, via: 'api_key' };
    if (account.state === 'active' && listFarms(db, scope).length === 0) loadFarms(db, scope);
    const { token } = await signAccountAccess(db, account.id);
    // Like the API key, the admin password is stored hashed: every start issues a fresh one.
    if (listAdmins(db, org).some((a) => a.email === DEMO_ADMIN)) deleteAdmin(db, org, DEMO_ADMIN);
    const adminPassword = randomBytes(9).toString('base64url');
    await createAdmin(db, org, DEMO_ADMIN, adminPassword);
    const service = config.publicUrl;
    const credentials = {
      organization_id: org, api_key, account_id: account.id, account_access: token, embedded_url: embeddedUrl(config.embedUrl, account.auth_id), service,
      admin_email: DEMO_ADMIN, admin_password: adminPassword,
    };
    const banner = [
      'Demo data is loaded. Credentials (the API key is new on every start; the previous one is revoked):',
      `  organization  ${org}`,
      `  x-api-key     ${api_key}`,
      `  account       ${account.id}   (send as Service-Account)`,
      `  embedded map  ${credentials.embedded_url}`,
      `  admin panel   ${service}/admin/   (${DEMO_ADMIN} / ${adminPassword})`,
      `Try: curl -s -H 'x-api-key: ${api_key}' -H 'Service-Account: ${account.id}' ${service}/api/farms/`,
    ].join('\n');
    return { credentials, banner };
  } finally {
    db.close();
  }
}

function loadFarms(db: ReturnType<typeof openDb>, scope: Scope): void {
  const rand = rng(20261121);
  db.transaction(() => {
    REGIONS.forEach((r, ri) => {
      const parcels = Array.from({ length: 12 }, (_, i) => {
        const lon = r.lon + (i % 4) * 0.012 + (rand() - 0.5) * 0.002;
        const lat = r.lat + Math.floor(i / 4) * 0.009 + (rand() - 0.5) * 0.002;
        const hectares = 4 + rand() * 30;
        const metadata = {
          'Supplier ID': `S-${10 + ri * 20 + (i % 5)}`, region: r.region, contract_year: 2024 + (i % 3),
          crop_type: r.crops[i % r.crops.length]!, certification: i % 3 === 0 ? 'organic' : 'conventional',
        };
        const point = i === 11;
        return {
          name: point ? `${r.farm.split(' ')[1]} trial plot` : `${r.farm.split(' ').pop()} ${String.fromCharCode(65 + i)}`,
          metadata,
          geom: point
            ? { type: 'Feature', properties: { metadata: { hectares: 2.5 } }, geometry: { type: 'Point', coordinates: [lon, lat] } }
            : { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: fieldPolygon(lon, lat, hectares, rand) } },
        };
      });
      const { farm } = createFarm(db, scope, { farm: { name: r.farm }, parcels });
      const ids = db.prepare('SELECT id FROM parcels WHERE farm_id = ? ORDER BY id').all(farm.id) as { id: number }[];
      ids.forEach(({ id }, i) => {
        for (let season = 0; season < 3; season++) {
          const name = r.crops[(i + season) % r.crops.length]!;
          const year = 2023 + season;
          createCrop(db, scope, {
            parcel: id, name, campaign: `${year}/${year + 1}`, variety: null, family: { name: FAMILY[name] ?? 'Poaceae' },
            sowing: `${year}-10-${String(10 + (i % 15)).padStart(2, '0')}`, closure: season < 2 ? `${year + 1}-07-${String(1 + (i % 20)).padStart(2, '0')}` : null,
            area: null, harvested_qty: season < 2 ? Math.round((3 + rand() * 5) * 10) / 10 : null, is_active: season === 2,
          });
        }
      });
    });
    // An almond orchard with its detected trees.
    const orchardRing = fieldPolygon(-4.735, 37.905, 3, rand, 5);
    const { farm } = createFarm(db, scope, {
      farm: { name: 'Almendral La Vega' },
      parcels: [{ name: 'Almond orchard', metadata: { 'Supplier ID': 'S-77', region: 'Andalucía', crop_type: 'Almond', certification: 'organic' }, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: orchardRing } } }],
    });
    const parcelId = (db.prepare('SELECT id FROM parcels WHERE farm_id = ?').get(farm.id) as { id: number }).id;
    const crop = createCrop(db, scope, { parcel: parcelId, name: 'Almond', variety: 'Guara', campaign: '2025', family: { name: 'Rosaceae' }, sowing: '2019-02-15', is_active: true });
    const trees = orchardTrees(orchardRing, rand);
    importPlants(db, scope.organizationId, scope.accountId!, {
      type: 'FeatureCollection',
      features: trees.map((t) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: t.point }, properties: { shape: { type: 'Polygon', coordinates: t.shape }, info: t.info, parcel: parcelId, crop: crop.id } })),
    });
  })();
}
