// GeoJSON-shaped geometry types shared by the service, the local mirror and the sync engine.
// Positions stay plain number arrays so parsed JSON can be used without copying.

export type Position = number[]; // [lon, lat] or [lon, lat, z]
export type PolygonCoords = Position[][]; // rings, first is the outer ring
export interface PolygonGeometry {
  type: 'Polygon';
  coordinates: PolygonCoords;
}
export interface PointGeometry {
  type: 'Point';
  coordinates: Position;
}
export type BBox = [number, number, number, number]; // minLon, minLat, maxLon, maxLat
