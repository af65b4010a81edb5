// The data the page receives from /embed/data/* (see ../data.ts) and the read-only hook the tests use.

export type MetaValue = string | number | boolean;

export interface CurrentCrop {
  name: string | null;
  variety: string | null;
  campaign: string | null;
  sowing: string | null;
  family: string | null;
}

export interface ParcelProps {
  name: string;
  /** The farm's id: a key of ParcelCollection.farms. */
  farm: number;
  hectares: number;
  metadata: Record<string, MetaValue>;
  crop: CurrentCrop | null;
}

export interface ParcelCollection {
  type: 'FeatureCollection';
  count: number;
  truncated: boolean;
  /** Farm names by id, for the farms of the parcels sent. */
  farms: Record<string, string>;
  /** The organization's crop family names, which the map's colours are assigned among (colors.ts). */
  families?: string[];
  features: { type: 'Feature'; id: number; geometry: unknown; properties: ParcelProps }[];
}

export interface ErrorResponse {
  code: string;
  message: string;
}

export interface Timings {
  /** performance.now() (ms since navigation start) at each step of the load. */
  script_start: number;
  data_received: number;
  features_read: number;
  first_render: number;
  ready: number;
}

/** window.__furrowEmbed: read-only views of the map's state for tests and benchmarks, never pixels alone. */
export interface EmbedHook {
  /** Resolves when the parcels are loaded, fitted and drawn (rejects when the page shows an error). */
  ready: Promise<void>;
  timings: Partial<Timings>;
  /** Names of the parcels on the map (the features of the parcel layer), sorted. */
  parcelNames(): string[];
  /** Names of the parcels whose drawn shape is under the given client pixel (the layer's own hit detection). */
  drawnAt(x: number, y: number): string[];
  /** Client coordinates of a point inside the named parcel, or null when it is not on the map or off-screen. */
  hoverPixelOf(name: string): { x: number; y: number } | null;
  /** The parcel under the centre of the map, if any. */
  featureAtCenter(): string | null;
  plantCount(): number;
  layerVisible(layer: 'parcels' | 'plants' | 'basemap'): boolean;
  view(): { center: [number, number]; zoom: number };
  /** What the map shows: [west, south, east, north] in degrees, and metres per pixel on the ground at the centre. */
  viewExtent(): { extent: [number, number, number, number]; metresPerPixel: number };
  /** True once the view has stopped moving and the map has been drawn for where it stopped. */
  settled(): boolean;
  /** Client rectangle of the named parcel's extent, or null when it is not on the map. */
  rectOf(name: string): { left: number; top: number; right: number; bottom: number } | null;
  /** The colour the parcel is drawn with (its crop family's), or null when it is not on the map. */
  colorOf(name: string): string | null;
  /** The parcel whose detail panel is open, if any. */
  selected(): string | null;
}

declare global {
  interface Window { __furrowEmbed?: EmbedHook }
}
