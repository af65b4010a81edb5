// KML and KMZ → GeoJSON features. Placemark names become `name`, ExtendedData (Data and SimpleData) becomes
// properties (that is @tmcw/togeojson's mapping); what togeojson adds for drawing the map — styles, icons,
// visibility — is not parcel data and is dropped. A KMZ's NetworkLinks to KML files inside the archive (GDAL's LIBKML
// driver writes doc.kml linking to layers/<layer>.kml) are followed; nothing is ever fetched from elsewhere.

import { kml } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { ImportError } from './errors.ts';

type XmlDocument = ReturnType<DOMParser['parseFromString']>;

const PRESENTATION = new Set([
  'styleUrl', 'styleHash', 'styleMapHash', 'stroke', 'stroke-opacity', 'stroke-width', 'fill', 'fill-opacity',
  'icon', 'icon-color', 'icon-opacity', 'icon-scale', 'icon-heading', 'icon-offset', 'icon-offset-units',
  'label-color', 'label-opacity', 'label-scale', 'visibility', 'open', 'coordinateProperties', '@geometry-type',
]);

/** The features of a KML file. It must hold them itself: a NetworkLink (content elsewhere) is refused. */
export function readKml(text: string, fileName: string): unknown[] {
  const doc = parseKml(text, fileName);
  const [href] = networkLinks(doc);
  if (href !== undefined) {
    throw new ImportError('external_link', `${fileName} links to ${href} (a NetworkLink) instead of holding its placemarks; Furrow never fetches ` +
      'linked files: import the linked file itself, or a KMZ that holds it');
  }
  return featuresOf(doc);
}

/**
 * The features of a KMZ (its .kml entries, inflated): the root KML (doc.kml, else the first at the top level, else
 * the first), then, depth first in document order, the KML files its NetworkLinks name inside the archive. A link
 * that leaves the archive (a URL, an absolute path, ../ past the top) or names a file it does not hold is refused.
 */
export function readKmz(entries: Readonly<Record<string, Uint8Array>>, fileName: string): unknown[] {
  const names = Object.keys(entries).filter((n) => /\.kml$/i.test(n));
  const root = names.find((n) => n.toLowerCase() === 'doc.kml') ?? names.find((n) => !n.includes('/')) ?? names[0];
  if (root === undefined) throw new ImportError('unsupported_format', `${fileName} holds no KML`);
  const features: unknown[] = [];
  const visited = new Set<string>();
  const visit = (name: string) => {
    if (visited.has(name)) return; // a link back to a file already read (a cycle) adds nothing
    visited.add(name);
    const doc = parseKml(new TextDecoder().decode(entries[name]).replace(/^\uFEFF/, ''), `${fileName}/${name}`);
    features.push(...featuresOf(doc));
    for (const href of networkLinks(doc)) {
      const target = inArchive(name, href);
      if (target === null) {
        throw new ImportError('external_link', `${fileName}: ${name} links to ${href}, outside the archive; Furrow imports only what the KMZ ` +
          'holds and never fetches linked files: download it and import it, or export the layer with its placemarks inside the KMZ');
      }
      const entry = names.find((n) => n === target) ?? names.find((n) => n.toLowerCase() === target.toLowerCase());
      if (entry === undefined) throw new ImportError('external_link', `${fileName}: ${name} links to ${href}, which the archive does not hold`);
      visit(entry);
    }
  };
  visit(root);
  return features;
}

/** A link's path inside the archive, resolved against the linking file's folder; null when it leaves the archive. */
function inArchive(from: string, href: string): string | null {
  const h = href.trim().split(/[?#]/)[0]!;
  if (h === '' || /^[a-z][a-z0-9+.-]*:/i.test(h) || h.startsWith('/') || h.startsWith('\\')) return null;
  let path: string;
  try {
    path = decodeURIComponent(h);
  } catch {
    path = h;
  }
  const parts = from.split('/').slice(0, -1);
  for (const seg of path.replace(/\\/g, '/').split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length === 0) return null;
      parts.pop();
    } else parts.push(seg);
  }
  return parts.join('/');
}

/** The href of every NetworkLink (KML 2.2 <Link>, KML 2.0 <Url>), in document order. */
function networkLinks(doc: XmlDocument): string[] {
  const out: string[] = [];
  const links = doc.getElementsByTagNameNS('*', 'NetworkLink');
  for (let i = 0; i < links.length; i++) {
    const href = links[i]!.getElementsByTagNameNS('*', 'href')[0];
    const text = href?.textContent?.trim();
    if (text) out.push(text);
  }
  return out;
}

function parseKml(text: string, fileName: string): XmlDocument {
  let doc: XmlDocument;
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
  return doc;
}

function featuresOf(doc: XmlDocument): unknown[] {
  // skipNullGeometry stays off: a placemark without geometry keeps its index and is reported as invalid.
  // togeojson turns each NetworkLink into a feature without geometry: the links are followed (or refused) instead.
  return kml(doc).features.filter((f) => f.properties?.['@geometry-type'] !== 'networklink').map((f) => {
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
