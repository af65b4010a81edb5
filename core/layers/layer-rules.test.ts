// The layers' rules, as the panel and the host both apply them.
import { describe, expect, it } from 'vitest';
import { layerProblem, layersProblem, MAX_LAYERS, serviceUrlProblem, worldLayer, type LayerLike } from './layer-rules.ts';

const wms = (url: string): LayerLike => ({ id: 'w', name: 'Orthophoto', source: { kind: 'wms', url } });

describe('layer rules', () => {
  it("take a service's address over https anywhere, over http from this computer only, never with credentials", () => {
    expect(serviceUrlProblem('https://www.ign.es/wms-inspire/pnoa-ma?')).toBeNull();
    expect(serviceUrlProblem(' http://127.0.0.1:8080/wms ')).toBeNull();
    expect(serviceUrlProblem('http://localhost/wmts/1.0.0/WMTSCapabilities.xml')).toBeNull();
    expect(serviceUrlProblem('http://wms.example.org/wms')).toMatch(/^Plain http:\/\/ is accepted only from this computer/);
    expect(serviceUrlProblem('ftp://wms.example.org/')).toMatch(/must start with https:\/\//);
    expect(serviceUrlProblem('https://u:p@wms.example.org/')).toMatch(/user name or password/);
    expect(serviceUrlProblem('https://exa mple.org/')).toMatch(/not a valid URL/);
  });

  it('check each kind of layer by its own address', () => {
    expect(layerProblem(worldLayer())).toBeNull();
    expect(layerProblem({ ...worldLayer(), id: 'other' })).toMatch(/id is world/);
    expect(layerProblem(wms('http://wms.example.org/'))).toMatch(/Plain http/);
    expect(layerProblem({ id: 't', name: 'Tiles', source: { kind: 'xyz', url: 'https://t.example.org/{z}/{x}.png' } })).toMatch(/needs \{y\}/);
    expect(layerProblem({ id: 'm', name: 'Ortho', source: { kind: 'wmts', capabilities: 'http://wmts.example.org/caps.xml' } })).toMatch(/Plain http/);
    expect(layerProblem({ id: 'f', name: '  ', source: { kind: 'file', file: 'a'.repeat(32) } })).toMatch(/needs a name/);
  });

  it('keep a list with the world once, unique ids, within the bound, naming the layer at fault', () => {
    expect(layersProblem([worldLayer(), wms('https://wms.example.org/')])).toBeNull();
    expect(layersProblem([wms('https://wms.example.org/')])).toMatch(/world backdrop once/);
    expect(layersProblem([worldLayer(), worldLayer()])).toMatch(/Two layers have the id world/);
    expect(layersProblem([worldLayer(), wms('http://wms.example.org/')])).toMatch(/^Orthophoto: Plain http/);
    const many = [worldLayer(), ...Array.from({ length: MAX_LAYERS }, (_, i) => ({ ...wms('https://wms.example.org/'), id: `w${i}` }))];
    expect(layersProblem(many)).toMatch(/At most 40 layers/);
  });
});
