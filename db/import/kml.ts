// KML and KMZ → GeoJSON features. Placemark names become `name`, ExtendedData (Data and SimpleData) becomes
// properties (that is @tmcw/togeojson's mapping); what togeojson adds for drawing the map — styles, icons,
// visibility — is not parcel data and is dropped. A KMZ's NetworkLinks to KML files inside the archive (GDAL's LIBKML
// driver writes doc.kml linking to layers/<layer>.kml) are followed; nothing is ever fetched from elsewhere.
//
// The file is never built into one DOM tree: a tree costs a few hundred bytes per element, so a small KMZ of empty
// elements took the process down. A streaming XML parser (saxes) reads the file in chunks; everything outside the
// placemarks is dropped as it passes, except what the features need (schemas, namespace declarations, links).
// Each placemark's XML is written out again and placemarks are handed to togeojson in batches, each batch a small
// document of its own; a placemark itself is bounded (elements, size, depth), so every tree built is small.

import { kml } from '@tmcw/togeojson';
import { DOMParser } from '@xmldom/xmldom';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { ImportError } from './errors.ts';

const PRESENTATION = new Set([
  'styleUrl', 'styleHash', 'styleMapHash', 'stroke', 'stroke-opacity', 'stroke-width', 'fill', 'fill-opacity',
  'icon', 'icon-color', 'icon-opacity', 'icon-scale', 'icon-heading', 'icon-offset', 'icon-offset-units',
  'label-color', 'label-opacity', 'label-scale', 'visibility', 'open', 'coordinateProperties', '@geometry-type',
]);

/** Deepest element nesting accepted: real KML nests a dozen levels (Document, Folders, Placemark, geometry). */
export const KML_MAX_DEPTH = 100;
/** Elements in one placemark: a MultiGeometry of a few thousand polygons stays far below. */
export const KML_MAX_PLACEMARK_ELEMENTS = 100_000;
/** Characters of one placemark's XML (a 10,000-vertex ring is about 400 KB). */
export const KML_MAX_PLACEMARK_CHARS = 64 << 20;
/** Placemarks per batch handed to togeojson, and characters at most (whichever comes first). */
const BATCH_ITEMS = 256;
const BATCH_CHARS = 4 << 20;
/** Characters decoded and parsed at a time. */
const CHUNK_BYTES = 1 << 20;

interface KmlContent {
  features: unknown[];
  /** The href of every NetworkLink (KML 2.2 <Link>, KML 2.0 <Url>), in document order. */
  links: string[];
}

/** The features of a KML file. It must hold them itself: a NetworkLink (content elsewhere) is refused. */
export function readKml(bytes: Uint8Array, fileName: string): unknown[] {
  const { features, links } = streamKml(bytes, fileName, (href) => {
    throw new ImportError('external_link', `${fileName} links to ${href} (a NetworkLink) instead of holding its placemarks; Furrow never fetches ` +
      'linked files: import the linked file itself, or a KMZ that holds it');
  });
  void links;
  return features;
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
    const content = streamKml(entries[name]!, `${fileName}/${name}`);
    for (const f of content.features) features.push(f);
    for (const href of content.links) {
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

const localName = (qualified: string) => qualified.slice(qualified.indexOf(':') + 1);
const escapeText = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string) => escapeText(s).replace(/"/g, '&quot;');

/**
 * Reads a KML file's placemarks (and ground overlays, after them, as togeojson orders them) with a streaming
 * parser. `onLink` is told of each NetworkLink as soon as its href is read (and may throw to stop there).
 */
function streamKml(bytes: Uint8Array, fileName: string, onLink?: (href: string) => void): KmlContent {
  const unreadable = (why: string) => new ImportError('unreadable', `${fileName} is not valid KML (XML): ${why}`);
  const parser = new SaxesParser({ xmlns: false as const, fileName });
  const features: unknown[] = [];
  const links: string[] = [];
  const stack: string[] = []; // local names of the open elements
  const namespaces: Record<string, string>[] = []; // the xmlns declarations of each open element
  const fields = new Map<string, string>(); // SimpleField name → type, from every Schema read so far
  const overlays: string[] = [];
  let batch: string[] = [];
  let batchChars = 0;
  let placemarks = 0;
  // The item (Placemark or GroundOverlay) being written out again: its depth in the stack, its XML, its size.
  let item: { depth: number; xml: string[]; chars: number; elements: number; overlay: boolean } | null = null;
  let href: string | null = null; // the text of a NetworkLink's <href>, while inside it
  let rootSeen = false;

  const flush = () => {
    if (batch.length === 0) return;
    for (const f of featuresOf(parseBatch(batch, fields, fileName))) features.push(f);
    batch = [];
    batchChars = 0;
  };
  const write = (s: string) => {
    if (!item) return;
    item.xml.push(s);
    item.chars += s.length;
    if (item.chars > KML_MAX_PLACEMARK_CHARS) {
      throw new ImportError('unreadable', `${fileName}: placemark ${placemarks + 1} is larger than ${KML_MAX_PLACEMARK_CHARS >> 20} MiB of XML; no parcel is that large`);
    }
  };

  parser.on('opentag', (tag: SaxesTagPlain) => {
    const name = localName(tag.name);
    if (!rootSeen) {
      rootSeen = true;
      if (name !== 'kml') throw new ImportError('unreadable', `${fileName} is not KML: its root element is <${name}>, not <kml>`);
    }
    const attrs = tag.attributes;
    const declared: Record<string, string> = {};
    for (const [k, v] of Object.entries(attrs)) if (k === 'xmlns' || k.startsWith('xmlns:')) declared[k] = v;
    stack.push(name);
    namespaces.push(declared);
    if (stack.length > KML_MAX_DEPTH) throw unreadable(`elements are nested more than ${KML_MAX_DEPTH} deep (at <${name}>); KML never needs that`);
    if (!item && (name === 'Placemark' || name === 'GroundOverlay')) {
      item = { depth: stack.length, xml: [], chars: 0, elements: 0, overlay: name === 'GroundOverlay' };
      // The namespaces declared above it, so that the placemark reads the same on its own.
      const inherited: Record<string, string> = {};
      for (const d of namespaces) Object.assign(inherited, d);
      write(`<${tag.name}${Object.entries({ ...inherited, ...attrs }).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('')}>`);
    } else if (item) {
      if (++item.elements > KML_MAX_PLACEMARK_ELEMENTS) {
        throw new ImportError('unreadable', `${fileName}: placemark ${placemarks + 1} holds more than ${KML_MAX_PLACEMARK_ELEMENTS.toLocaleString('en-US')} elements; no parcel needs that many`);
      }
      write(`<${tag.name}${Object.entries(attrs).map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('')}>`);
    } else if (name === 'SimpleField') {
      if (attrs['name'] !== undefined) fields.set(attrs['name'], attrs['type'] ?? '');
    } else if (name === 'href' && stack.includes('NetworkLink')) {
      href = '';
    }
  });
  parser.on('text', (text) => {
    if (item) write(escapeText(text));
    else if (href !== null && href.length < 8192) href += text;
  });
  parser.on('cdata', (text) => {
    if (item) write(`<![CDATA[${text}]]>`);
    else if (href !== null && href.length < 8192) href += text;
  });
  parser.on('closetag', (tag: SaxesTagPlain) => {
    const depth = stack.length;
    stack.pop();
    namespaces.pop();
    if (!item) {
      if (href !== null && localName(tag.name) === 'href') {
        const h = href.trim();
        href = null;
        if (h) {
          links.push(h);
          onLink?.(h);
        }
      }
      return;
    }
    write(`</${tag.name}>`);
    if (depth !== item.depth) return;
    const xml = item.xml.join('');
    if (item.overlay) overlays.push(xml);
    else {
      placemarks++;
      batch.push(xml);
      batchChars += xml.length;
      if (batch.length >= BATCH_ITEMS || batchChars >= BATCH_CHARS) flush();
    }
    item = null;
  });

  const decoder = new TextDecoder('utf-8');
  try {
    for (let at = 0; at < bytes.length; at += CHUNK_BYTES) {
      parser.write(decoder.decode(bytes.subarray(at, at + CHUNK_BYTES), { stream: true }));
    }
    parser.write(decoder.decode());
    parser.close();
  } catch (e) {
    if (e instanceof ImportError) throw e;
    // saxes says "<fileName>:<line>:<column>: <what>".
    throw unreadable((e as Error).message.replace(`${fileName}:`, 'line '));
  }
  if (!rootSeen) throw new ImportError('unreadable', `${fileName} is not KML: it holds no element`);
  flush();
  batch = overlays;
  flush();
  return { features, links };
}

/** A batch of placemarks (their XML) as a small KML document of its own, with the schemas read so far. */
function parseBatch(items: readonly string[], fields: ReadonlyMap<string, string>, fileName: string) {
  const schema = fields.size === 0 ? '' :
    `<Schema>${[...fields].map(([name, type]) => `<SimpleField name="${escapeAttr(name)}" type="${escapeAttr(type)}"/>`).join('')}</Schema>`;
  const text = `<kml><Document>${schema}${items.join('')}</Document></kml>`;
  try {
    return new DOMParser({
      onError: (level, msg) => {
        if (level !== 'warning') throw new Error(msg);
      },
    }).parseFromString(text, 'text/xml');
  } catch (e) {
    throw new ImportError('unreadable', `${fileName} is not valid KML (XML): ${(e as Error).message}`);
  }
}

function featuresOf(doc: ReturnType<DOMParser['parseFromString']>): unknown[] {
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
