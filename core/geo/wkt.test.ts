import { describe, expect, it } from 'vitest';
import { childOf, describeWkt, epsgOf, nameOf, parseWkt, WktError } from './wkt.ts';

// As GDAL 3.6 writes them into a Shapefile's .prj (ESRI's WKT: no EPSG code).
const ESRI_NTF = 'PROJCS["NTF_Paris_Lambert_Zone_II",GEOGCS["GCS_NTF_Paris",DATUM["D_NTF",SPHEROID["Clarke_1880_IGN",6378249.2,293.466021293627]],' +
  'PRIMEM["Paris",2.33722917],UNIT["Grad",0.0157079632679489]],PROJECTION["Lambert_Conformal_Conic"],PARAMETER["False_Easting",600000.0],' +
  'PARAMETER["False_Northing",2200000.0],PARAMETER["Central_Meridian",0.0],PARAMETER["Standard_Parallel_1",52.0],PARAMETER["Scale_Factor",0.99987742],' +
  'PARAMETER["Latitude_Of_Origin",52.0],UNIT["Meter",1.0]]';
const OGC_ED50 = 'PROJCS["ED50 / UTM zone 30N",GEOGCS["ED50",DATUM["European_Datum_1950",SPHEROID["International 1924",6378388,297],' +
  'TOWGS84[-87,-98,-121,0,0,0,0]],PRIMEM["Greenwich",0,AUTHORITY["EPSG","8901"]],UNIT["degree",0.0174532925199433]],PROJECTION["Transverse_Mercator"],' +
  'PARAMETER["latitude_of_origin",0],PARAMETER["central_meridian",-3],PARAMETER["scale_factor",0.9996],PARAMETER["false_easting",500000],' +
  'PARAMETER["false_northing",0],UNIT["metre",1],AXIS["Easting",EAST],AXIS["Northing",NORTH],AUTHORITY["EPSG","23030"]]';

describe('parseWkt', () => {
  it('reads nested keywords, strings (with doubled quotes), numbers and bare words, in brackets or parentheses', () => {
    const root = parseWkt(' GEOGCRS("a ""b""", ID["EPSG", 4326], AXIS["x", EAST], -1.5e-3 ) ');
    expect(root.key).toBe('GEOGCRS');
    expect(root.args[0]).toBe('a "b"');
    expect(childOf(root, 'ID')).toEqual({ key: 'ID', args: ['EPSG', 4326] });
    expect(childOf(root, 'AXIS')!.args[1]).toEqual({ word: 'EAST' });
    expect(root.args[3]).toBe(-0.0015);
  });

  it('refuses what is not WKT, saying where', () => {
    expect(() => parseWkt('EPSG:25830')).toThrow(WktError);
    expect(() => parseWkt('PROJCS["x"')).toThrow(/unexpected end/);
    expect(() => parseWkt('PROJCS["x"] trailing')).toThrow(/text after the end at character 13/);
    expect(() => parseWkt('PROJCS["x]')).toThrow(/unterminated string/);
  });
});

describe('epsgOf', () => {
  it("takes the CRS's own AUTHORITY or ID, not a nested one's", () => {
    expect(epsgOf(parseWkt(OGC_ED50))).toBe(23030);
    expect(epsgOf(parseWkt('PROJCRS["x",BASEGEOGCRS["y",ID["EPSG",4258]],ID["EPSG",25830]]'))).toBe(25830);
    expect(epsgOf(parseWkt(ESRI_NTF))).toBeNull();
    expect(epsgOf(parseWkt('GEOGCS["x",AUTHORITY["ESRI","37225"]]'))).toBeNull();
  });
});

describe('describeWkt', () => {
  it("reads ESRI's NTF in grads: angles to degrees, Paris by its name (ESRI writes it in degrees)", () => {
    const d = describeWkt(parseWkt(ESRI_NTF));
    expect(d).toMatchObject({ kind: 'projected', name: 'NTF_Paris_Lambert_Zone_II', datum: 'D_NTF', geogcs: 'GCS_NTF_Paris', towgs84: false });
    // 52 grads is 46.8°.
    expect(d.proj4).toBe('+proj=lcc +x_0=600000 +y_0=2200000 +lon_0=0 +lat_1=46.8 +k_0=0.99987742 +lat_0=46.8 +a=6378249.2 +rf=293.466021293627 +pm=2.337229166666667 +no_defs');
  });

  it('keeps a TOWGS84, and reads false easting in feet as metres', () => {
    expect(describeWkt(parseWkt(OGC_ED50))).toMatchObject({ towgs84: true, proj4: expect.stringContaining('+towgs84=-87,-98,-121,0,0,0,0') as unknown });
    const feet = describeWkt(parseWkt('PROJCS["f",GEOGCS["g",DATUM["D_North_American_1983",SPHEROID["GRS_1980",6378137.0,298.257222101]],UNIT["Degree",0.0174532925199433]],' +
      'PROJECTION["Transverse_Mercator"],PARAMETER["False_Easting",1000.0],PARAMETER["Central_Meridian",-81.0],UNIT["Foot_US",0.3048006096012192]]'));
    expect(feet.proj4).toContain('+x_0=304.8006096012192 +lon_0=-81 +to_meter=0.3048006096012192');
  });

  it('reads Web Mercator as a sphere of the WGS84 radius, and a geographic CRS', () => {
    const merc = describeWkt(parseWkt('PROJCS["WGS_1984_Web_Mercator_Auxiliary_Sphere",GEOGCS["GCS_WGS_1984",DATUM["D_WGS_1984",SPHEROID["WGS_1984",6378137.0,298.257223563]],' +
      'PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]],PROJECTION["Mercator_Auxiliary_Sphere"],PARAMETER["False_Easting",0.0],UNIT["Meter",1.0]]'));
    expect(merc.proj4).toBe('+proj=merc +x_0=0 +a=6378137 +b=6378137 +nadgrids=@null +no_defs');
    expect(describeWkt(parseWkt('GEOGCS["GCS_ETRS_1989",DATUM["D_ETRS_1989",SPHEROID["GRS_1980",6378137.0,298.257222101]],PRIMEM["Greenwich",0.0],UNIT["Degree",0.0174532925199433]]')))
      .toMatchObject({ kind: 'geographic', proj4: '+proj=longlat +a=6378137 +rf=298.257222101 +no_defs' });
  });

  it('refuses a projection it does not read, and what is not a CRS, by name', () => {
    expect(() => describeWkt(parseWkt('PROJCS["k",GEOGCS["g",DATUM["d",SPHEROID["s",6377397.155,299.1528128]]],PROJECTION["Krovak"]]'))).toThrow(/projection Krovak is not one Furrow reads/);
    expect(() => describeWkt(parseWkt('VERT_CS["h",VERT_DATUM["d",2005]]'))).toThrow(/a VERT_CS\[…\] is not a projected or geographic CRS/);
    expect(() => describeWkt(parseWkt('GEOGCS["g",DATUM["d"]]'))).toThrow(/no SPHEROID/);
    expect(nameOf(parseWkt(ESRI_NTF))).toBe('NTF_Paris_Lambert_Zone_II');
  });
});
