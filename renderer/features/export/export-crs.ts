// The coordinate systems the Export buttons offer (features/export/), and the one last chosen: kept while the app runs,
// so the parcel's and the farm's buttons write the same. WGS84 is the default; any EPSG code can be typed (the host
// refuses one it has no definition of, saying so). Pure, tested beside it.

export const WGS84_CODE = 4326;

/** The grids farm managers are sent parcels in most, by the and the demo's regions; "Other" takes any code. */
export const CRS_CHOICES: readonly { code: number; name: string }[] = [
  { code: 4326, name: 'WGS 84 (longitude/latitude)' },
  { code: 25829, name: 'ETRS89 / UTM zone 29N' },
  { code: 25830, name: 'ETRS89 / UTM zone 30N' },
  { code: 25831, name: 'ETRS89 / UTM zone 31N' },
  { code: 25832, name: 'ETRS89 / UTM zone 32N' },
  { code: 3035, name: 'ETRS89 / LAEA Europe' },
  { code: 2154, name: 'RGF93 / Lambert-93' },
  { code: 27700, name: 'British National Grid' },
  { code: 31466, name: 'DHDN / Gauss-Krüger zone 2' },
  { code: 31467, name: 'DHDN / Gauss-Krüger zone 3' },
  { code: 31468, name: 'DHDN / Gauss-Krüger zone 4' },
  { code: 31469, name: 'DHDN / Gauss-Krüger zone 5' },
];

let last = WGS84_CODE;
export const lastCrs = (): number => last;
export const rememberCrs = (code: number): void => {
  last = code;
};

/** An EPSG code typed by the user ("25830", "EPSG:25830"), or null when it is not one (a whole number 1–32767). */
export function parseEpsg(text: string): number | null {
  const m = /^\s*(?:EPSG\s*:\s*)?(\d{1,5})\s*$/i.exec(text);
  const n = m ? Number(m[1]) : NaN;
  return n >= 1 && n <= 32767 ? n : null;
}

/** "GeoJSON in EPSG:25830", for the buttons' titles; nothing said of WGS84, the default. */
export const inCrs = (code: number): string => (code === WGS84_CODE ? '' : ` in EPSG:${code}`);
