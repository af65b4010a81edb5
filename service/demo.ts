import type { ServiceConfig } from './config.ts';
import { openStore } from './store/open.ts';
import type { Store } from './store/store.ts';
import { embeddedUrl } from './store/accounts.ts';
import { createFarm } from './store/farms.ts';
import { signAccountAccess } from './store/tokens.ts';
import { fieldPolygon, orchardTrees } from './demo-data.ts';
import { seededRandom as rng } from '../core/random.ts';
import { createAdmin, normEmail, verifyPassword } from './store/admins.ts';
import { demoCredentialsPath, readDemoSecrets, writeDemoSecrets, type SavedSecrets } from './demo-credentials.ts';
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
  /** Why a credential is not the saved one (revoked, file missing or readable by others…); empty when all are reused. */
  notices: string[];
  banner: string;
}

/** Quoted for a POSIX shell only when needed: keys, ids, tokens and plain URLs paste as they are. */
const shellWord = (s: string): string => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
const keyPrefix = (apiKey: string): string | undefined => /^(fk_[0-9a-f]{8})_/.exec(apiKey)?.[1];

/**
 * Loads the demo once (an organization, one connected account, two farms with crop rotations and an almond
 * orchard's trees) and keeps its API key and admin password across starts in DATA_DIR/demo-credentials.json
 * (mode 0600): the database stores only their hashes, and a new key on every start would cut off every client
 * connected with the old one. A saved credential that no longer works, or a file others could read, gives new ones.
 */
export async function runDemo(config: ServiceConfig): Promise<DemoResult> {
  const store = await openStore(config);
  try {
    const file = demoCredentialsPath(config.dataDir);
    const saved = readDemoSecrets(config.dataDir);
    const notices: string[] = [];
    let org = (await store.organizations.findByName(DEMO_ORG))?.id;
    let apiKey: string | undefined;
    const fresh = !org;
    // The organization's first key was never shown to anyone: it becomes the demo key.
    if (!org) ({ organization_id: org, api_key: apiKey } = await store.organizations.create(DEMO_ORG));
    const reuse = saved.state === 'ok' && saved.secrets.organization_id === org ? saved.secrets : null;
    if (reuse && (await store.apiKeys.findActive(reuse.api_key))?.organization_id === org) apiKey = reuse.api_key;
    else {
      if (saved.state === 'exposed' && saved.secrets && (await store.apiKeys.findActive(saved.secrets.api_key))?.organization_id === org) {
        await store.apiKeys.revoke(org, keyPrefix(saved.secrets.api_key)!);
      }
      const notice = await keyNotice(store, org, file, saved, fresh);
      if (notice) notices.push(notice);
      apiKey ??= (await store.apiKeys.create(org, 'demo')).api_key;
    }
    let account = (await store.accounts.list(org)).find((a) => a.account_email === DEMO_EMAIL) ?? await store.accounts.create(org, DEMO_EMAIL);
    // Whoever could read the exposed key could also have fetched the embedded map's link: that link goes too.
    if (saved.state === 'exposed') account = await store.accounts.rotateAuthId(org, account.id);
    const scope: Scope = { organizationId: org, accountId: account.id, via: 'api_key' };
    // Created now, or kept from an earlier start (with whatever was changed in it since): said in the banner, so that a
    // start never reads as if the demo had been reset.
    const loaded = account.state === 'active' && (await store.farms.list(scope)).length === 0;
    if (loaded) await loadFarms(store, scope);
    const { token, expiresAt } = await signAccountAccess(store, account.id);
    const adminPassword = await demoAdminPassword(store, org, reuse?.admin_password, notices);
    writeDemoSecrets(config.dataDir, { organization_id: org, api_key: apiKey, admin_email: DEMO_ADMIN, admin_password: adminPassword });

    const service = config.publicUrl;
    const credentials = {
      organization_id: org, api_key: apiKey, account_id: account.id, account_access: token, embedded_url: embeddedUrl(config.embedUrl, account.auth_id), service,
      admin_email: DEMO_ADMIN, admin_password: adminPassword,
    };
    const exports = { FURROW_URL: service, KEY: apiKey, ACCOUNT: account.id, TOKEN: token };
    const banner = [
      ...notices.map((n) => `! ${n}`),
      `${fresh ? `Demo data created in ${config.dataDir}.` : loaded ? `Demo farms loaded again in ${config.dataDir} (the account had none).` : `Demo data kept from an earlier start, with your changes (in ${config.dataDir}; remove that folder to start afresh).`} Credentials (saved in ${file}, readable by you only; the same on every start):`,
      `  organization  ${org}`,
      `  x-api-key     ${apiKey}`,
      `  account       ${account.id}   (send as Service-Account)`,
      `  embedded map  ${credentials.embedded_url}`,
      `  admin panel   ${service}/admin/   (${DEMO_ADMIN} / ${adminPassword})`,
      `  start page    ${service}/`,
      '',
      `For the README's examples, paste into your shell (TOKEN is the account's bearer token, valid until ${expiresAt.slice(0, 16).replace('T', ' ')} UTC):`,
      `export ${Object.entries(exports).map(([k, v]) => `${k}=${shellWord(v)}`).join(' ')}`,
      '',
    ].join('\n');
    return { credentials, notices, banner };
  } finally {
    await store.close();
  }
}

/** Why the saved API key is not used; null when there is nothing to explain (a brand-new demo). */
async function keyNotice(store: Store, org: string, file: string, saved: SavedSecrets, fresh: boolean): Promise<string | null> {
  switch (saved.state) {
    case 'missing':
      return fresh ? null : `No saved demo credentials (${file}): a new API key and admin password are issued. Keys issued before stay valid until revoked.`;
    case 'unreadable':
      return `${file} could not be used (${saved.reason}): new demo credentials are issued and the file is written again.`;
    case 'exposed':
      return `${file} was readable by other users (mode ${saved.mode}): its API key is revoked, a new key, admin password and embedded-map link are issued, and the file is now readable by you only.`;
    case 'ok': {
      if (saved.secrets.organization_id !== org) return `The saved demo credentials (${file}) belong to another demo database: new ones are issued.`;
      const revoked = (await store.apiKeys.list(org)).find((k) => k.prefix === keyPrefix(saved.secrets.api_key))?.revoked;
      return revoked
        ? `The saved demo API key was revoked (${revoked.slice(0, 16).replace('T', ' ')} UTC): a new one is issued. Clients connected with the old key must connect again.`
        : 'The saved demo API key is not in this database: a new one is issued.';
    }
  }
}

/** The saved password when it still opens the demo admin's account; otherwise the admin is created again with a new one. */
async function demoAdminPassword(store: Store, org: string, saved: string | undefined, notices: string[]): Promise<string> {
  const [admin] = await store.admins.forSignIn(normEmail(DEMO_ADMIN), org);
  if (saved !== undefined && admin && (await verifyPassword(saved, admin.password_hash))) return saved;
  if (saved !== undefined) notices.push(`The saved password of ${DEMO_ADMIN} no longer opens the admin panel (changed or removed there): a new one is issued.`);
  if (admin) await store.admins.delete(org, DEMO_ADMIN);
  const password = randomBytes(9).toString('base64url');
  await createAdmin(store, org, DEMO_ADMIN, password);
  return password;
}

const SEASONS = 3;

/**
 * The demo's farms, crops and orchard. Each farm comes with its parcels atomically (Store methods are atomic one by
 * one, not across calls), so a start interrupted midway keeps what it loaded: the check before it sees farms and
 * does not load twice.
 */
async function loadFarms(store: Store, scope: Scope): Promise<void> {
  const rand = rng(20261121);
  for (const [ri, r] of REGIONS.entries()) {
    // Three seasons of rotation, the last one active: crop_type names that current crop.
    const cropOf = (i: number, season: number) => r.crops[(i + season) % r.crops.length]!;
    const parcels = Array.from({ length: 12 }, (_, i) => {
      const lon = r.lon + (i % 4) * 0.012 + (rand() - 0.5) * 0.002;
      const lat = r.lat + Math.floor(i / 4) * 0.009 + (rand() - 0.5) * 0.002;
      const hectares = 4 + rand() * 30;
      const metadata = {
        'Supplier ID': `S-${10 + ri * 20 + (i % 5)}`, region: r.region, contract_year: 2024 + (i % 3),
        crop_type: cropOf(i, SEASONS - 1), certification: i % 3 === 0 ? 'organic' : 'conventional',
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
    // The rows come back in request order, which is id order.
    const { rows } = await createFarm(store, scope, { farm: { name: r.farm }, parcels });
    for (const [i, { id }] of rows.entries()) {
      for (let season = 0; season < SEASONS; season++) {
        const name = cropOf(i, season);
        const year = 2023 + season;
        await store.crops.create(scope, {
          parcel: id, name, campaign: `${year}/${year + 1}`, variety: null, family: { name: FAMILY[name] ?? 'Poaceae' },
          sowing: `${year}-10-${String(10 + (i % 15)).padStart(2, '0')}`, closure: season < SEASONS - 1 ? `${year + 1}-07-${String(1 + (i % 20)).padStart(2, '0')}` : null,
          area: null, harvested_qty: season < SEASONS - 1 ? Math.round((3 + rand() * 5) * 10) / 10 : null, is_active: season === SEASONS - 1,
        });
      }
    }
  }
  // An almond orchard with its detected trees.
  const orchardRing = fieldPolygon(-4.735, 37.905, 3, rand, 5);
  const { rows: [orchard] } = await createFarm(store, scope, {
    farm: { name: 'Almendral La Vega' },
    parcels: [{ name: 'Almond orchard', metadata: { 'Supplier ID': 'S-77', region: 'Andalucía', crop_type: 'Almond', certification: 'organic' }, geom: { type: 'Feature', properties: {}, geometry: { type: 'Polygon', coordinates: orchardRing } } }],
  });
  const parcelId = orchard!.id;
  const crop = await store.crops.create(scope, { parcel: parcelId, name: 'Almond', variety: 'Guara', campaign: '2025', family: { name: 'Rosaceae' }, sowing: '2019-02-15', is_active: true });
  const trees = orchardTrees(orchardRing, rand);
  await store.plants.import(scope.organizationId, scope.accountId!, {
    type: 'FeatureCollection',
    features: trees.map((t) => ({ type: 'Feature', geometry: { type: 'Point', coordinates: t.point }, properties: { shape: { type: 'Polygon', coordinates: t.shape }, info: t.info, parcel: parcelId, crop: crop.id } })),
  });
}
