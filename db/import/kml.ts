// KML → GeoJSON features. Placemark names become `name`, ExtendedData (Data and SimpleData) becomes properties
// (that is @tmcw/togeojson's mapping); what togeojson adds for drawing the map — styles, icons, visibility —
// is not parcel data and is dropped.

import { kml } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { ImportError } from './errors.ts';

const PRESENTATION = new Set([
  'styleUrl', 'styleHash', 'styleMapHash', 'stroke', 'stroke-opacity', 'stroke-width', 'fill', 'fill-opacity',
  'icon', 'icon-color', 'icon-opacity', 'icon-scale', 'icon-heading', 'icon-offset', 'icon-offset-units',
  'label-color', 'label-opacity', 'label-scale', 'visibility', 'open', 'coordinateProperties', '@geometry-type',
]);

export function readKml(text: string, fileName: string): unknown[] {
  let doc;
  try {
    doc = new DOMParser({
      onError: (level, msg) => {
        // Warnings (an unknown entity, say) still leave a usable document; errors do not.
        if (level !== 'warning') throw new Error(msg);
      },
    }).parseFromString(text, 'text/xml');
  } catch (e) {
    throw new ImportError('unreadable', `${fileName} is not valid KML (XML): ${(e as Error).message}`);
  }
  if (doc.documentElement?.localName !== 'kml') {
    throw new ImportError('unreadable', `${fileName} is not KML: its root element is <${doc.documentElement?.localName ?? 'nothing'}>, not <kml>`);
  }
  // skipNullGeometry stays off: a placemark without geometry keeps its index and is reported as invalid.
  return kml(doc).features.map((f) => {
    const properties: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(f.properties ?? {})) {
      if (PRESENTATION.has(k)) continue;
      // An HTML (CDATA) description arrives as { "@type": "html", value }: the text is what the user wrote.
      properties[k] = k === 'description' && isHtml(v) ? v.value : v;
    }
    return { type: 'Feature', properties, geometry: multiGeometry(f.geometry) };
  });
}

function isHtml(v: unknown): v is { value: string } {
  return typeof v === 'object' && v !== null && typeof (v as Record<string, unknown>)['value'] === 'string';
}

/**
 * KML has no MultiPolygon: a field in several pieces is a MultiGeometry of Polygons, which togeojson turns
 * into a GeometryCollection. Such a collection is taken as the MultiPolygon it means; any other collection
 * (mixed types) stays one and is refused like in GeoJSON.
 */
function multiGeometry(g: unknown): unknown {
  if (typeof g !== 'object' || g === null) return g;
  const geometries = (g as Record<string, unknown>)['geometries'];
  if ((g as Record<string, unknown>)['type'] !== 'GeometryCollection' || !Array.isArray(geometries)) return g;
  const polygons = geometries as { type?: unknown; coordinates?: unknown }[];
  if (polygons.length === 0 || !polygons.every((p) => p.type === 'Polygon')) return g;
  return { type: 'MultiPolygon', coordinates: polygons.map((p) => p.coordinates) };
}
