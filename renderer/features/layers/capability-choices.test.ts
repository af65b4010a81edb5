import { describe, expect, it } from 'vitest';
import { preferredMatrixSet, wmsLayerChoices, wmtsLayerChoices } from './capability-choices.ts';

describe('capability choices', () => {
  it('offers the WMS layers that have a name, depth first', () => {
    const parsed = { Capability: { Layer: { Title: 'Root', Layer: [{ Name: 'OI.OrthoimageCoverage', Title: 'Orthoimagery' }, { Title: 'Group', Layer: [{ Name: 'CP.CadastralParcel' }] }] } } };
    expect(wmsLayerChoices(parsed)).toEqual([
      { id: 'OI.OrthoimageCoverage', title: 'Orthoimagery', matrixSets: [] }, { id: 'CP.CadastralParcel', title: 'CP.CadastralParcel', matrixSets: [] },
    ]);
    expect(wmsLayerChoices(null)).toEqual([]);
    expect(wmsLayerChoices({ Capability: { Layer: { Name: 'x', Layer: 'not a list' } } })).toEqual([{ id: 'x', title: 'x', matrixSets: [] }]);
  });

  it('offers the WMTS layers with their matrix sets, Web Mercator first', () => {
    const parsed = {
      Contents: {
        Layer: [{ Identifier: 'PNOA', Title: 'Orthophoto', TileMatrixSetLink: [{ TileMatrixSet: 'EPSG:25830' }, { TileMatrixSet: 'GoogleMapsCompatible' }] }, { Title: 'no id' }],
        TileMatrixSet: [{ Identifier: 'EPSG:25830', SupportedCRS: 'urn:ogc:def:crs:EPSG::25830' }, { Identifier: 'GoogleMapsCompatible', SupportedCRS: 'urn:ogc:def:crs:EPSG::3857' }, { Identifier: 'grid', SupportedCRS: 'urn:ogc:def:crs:EPSG::3857' }],
      },
    };
    const [layer] = wmtsLayerChoices(parsed);
    expect(layer).toEqual({ id: 'PNOA', title: 'Orthophoto', matrixSets: ['EPSG:25830', 'GoogleMapsCompatible'] });
    expect(preferredMatrixSet(parsed, layer!.matrixSets)).toBe('GoogleMapsCompatible');
    expect(preferredMatrixSet(parsed, ['EPSG:25830', 'grid'])).toBe('grid');
    expect(preferredMatrixSet(parsed, ['EPSG:25830'])).toBe('EPSG:25830');
    expect(preferredMatrixSet(parsed, [])).toBeNull();
  });
});
