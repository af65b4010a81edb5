// The text encoding of a shapefile's DBF, in this order:
//   1. the .cpg file, when there is one and it names an encoding this runtime decodes;
//   2. the DBF header's language driver id (LDID, byte 29), when it names a code page (GDAL's table);
//   3. UTF-8, when the record bytes (not the binary header before them) are valid UTF-8;
//   4. Windows-1252, the format's old default (a superset of Latin-1).
// A .cpg or LDID naming a code page that cannot be decoded here (DOS 437, 850, …) is passed over with a note.

/** LDID → Windows code page, as GDAL reads it (ogr/ogrsf_frmts/shape); 87 is ISO-8859-1. */
const LDID_CODE_PAGES: Readonly<Record<number, number>> = {
  1: 437, 2: 850, 3: 1252, 4: 10000, 8: 865, 10: 850, 11: 437, 13: 437, 14: 850, 15: 437, 16: 850, 17: 437, 18: 850,
  19: 932, 20: 850, 21: 437, 22: 850, 23: 865, 24: 437, 25: 437, 26: 850, 27: 437, 28: 863, 29: 850, 31: 852, 34: 852,
  35: 852, 36: 860, 37: 850, 38: 866, 55: 850, 64: 852, 77: 936, 78: 949, 79: 950, 80: 874, 87: 28591, 88: 1252,
  89: 1252, 100: 852, 101: 866, 102: 865, 103: 861, 104: 895, 105: 620, 106: 737, 107: 857, 108: 863, 120: 950,
  121: 949, 122: 936, 123: 932, 124: 874, 134: 737, 135: 852, 136: 857, 150: 10007, 151: 10029, 200: 1250,
  201: 1251, 202: 1254, 203: 1253, 204: 1257,
};

/** Code pages by the WHATWG label TextDecoder knows them by. */
const NAMED_CODE_PAGES: Readonly<Record<number, string>> = {
  866: 'ibm866', 874: 'windows-874', 932: 'shift_jis', 936: 'gbk', 949: 'euc-kr', 950: 'big5', 10000: 'macintosh',
  10007: 'x-mac-cyrillic', 20866: 'koi8-r', 28591: 'iso-8859-1', 65001: 'utf-8',
};

/** The TextDecoder encoding for a label, or null when this runtime cannot decode it. */
function decodable(label: string): string | null {
  try {
    return new TextDecoder(label).encoding;
  } catch {
    return null;
  }
}

const codePageLabel = (cp: number): string => NAMED_CODE_PAGES[cp] ?? (cp >= 1250 && cp <= 1258 ? `windows-${cp}` : cp >= 28591 && cp <= 28606 ? `iso-8859-${cp - 28590}` : `cp${cp}`);

/** A .cpg's content ("UTF-8", "1252", "8859-1", "ANSI 1251", "Big5") as a label to try. */
function cpgLabel(text: string): string {
  const s = text.trim();
  if (/^utf-?8$/i.test(s)) return 'utf-8';
  const cp = /^(?:cp|windows-?|ansi\s*)?(\d+)$/i.exec(s);
  if (cp) return codePageLabel(Number(cp[1]));
  const iso = /^(?:iso-?)?8859[-_]?(\d+)$/i.exec(s);
  if (iso) return `iso-8859-${iso[1]}`;
  return s;
}

export interface DbfEncoding {
  /** The TextDecoder encoding to read the DBF's text with. */
  encoding: string;
  /** What decided it. */
  from: 'cpg' | 'ldid' | 'utf-8 records' | 'default';
  /** Said to the user when a declared encoding could not be used. */
  note?: string;
}

/** Whether the DBF's records (from the header length on, without the end-of-file mark) are valid UTF-8. */
function recordsAreUtf8(dbf: Uint8Array): boolean {
  if (dbf.length < 32) return false;
  const headerLength = dbf[8]! | (dbf[9]! << 8);
  let end = dbf.length;
  if (end > headerLength && dbf[end - 1] === 0x1a) end--;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(dbf.subarray(Math.min(headerLength, end), end));
    return true;
  } catch {
    return false;
  }
}

export function dbfEncoding(cpg: Uint8Array | undefined, dbf: Uint8Array | undefined, fileName: string): DbfEncoding {
  const notes: string[] = [];
  if (cpg !== undefined) {
    const text = new TextDecoder().decode(cpg).trim();
    if (text !== '') {
      const encoding = decodable(cpgLabel(text));
      if (encoding) return { encoding, from: 'cpg' };
      notes.push(`its .cpg names "${text}", an encoding Furrow cannot read`);
    }
  }
  const ldid = dbf !== undefined && dbf.length > 29 ? dbf[29]! : 0;
  const cp = LDID_CODE_PAGES[ldid];
  if (cp !== undefined) {
    const encoding = decodable(codePageLabel(cp));
    if (encoding) return { encoding, from: 'ldid' };
    notes.push(`its DBF header names code page ${cp}, which Furrow cannot read`);
  }
  const note = (enc: string) => (notes.length ? { note: `${fileName}: ${notes.join('; ')}: its text was read as ${enc}; check accented letters` } : {});
  if (dbf === undefined || recordsAreUtf8(dbf)) return { encoding: 'utf-8', from: 'utf-8 records', ...note('UTF-8') };
  return { encoding: 'windows-1252', from: 'default', ...note('Windows-1252') };
}
