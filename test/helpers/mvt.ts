// Reads a vector tile as OpenLayers' MVT format reads it for the map (an independent reader of what
// core/tiles/mvt-writer.ts writes): each feature's type, tile coordinates and properties.
import MVT from 'ol/format/MVT.js';
import RenderFeature from 'ol/render/Feature.js';

export interface ReadFeature { id: string | number | undefined; type: string; coords: number[]; ends: number[]; props: Record<string, unknown> }

export function readTile(data: Uint8Array, layer = 'parcels', extent = 4096): ReadFeature[] {
  const format = new MVT({ featureClass: RenderFeature, layers: [layer] });
  // A tile extent in "tile-pixels" (no projection change): coordinates come out as written (y flipped by OpenLayers).
  const features = format.readFeatures(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) as ArrayBuffer, { extent: [0, 0, extent, extent], featureProjection: format.readProjection(data) });
  return features.map((f) => {
    const r = f as unknown as RenderFeature;
    const props = { ...r.getProperties() } as Record<string, unknown>;
    delete props.layer;
    return { id: r.getId(), type: r.getType(), coords: [...r.getFlatCoordinates()], ends: [...(r.getEnds() as number[])], props };
  });
}
