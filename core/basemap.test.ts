import { describe, expect, it } from 'vitest';
import { basemapUrlProblem } from './basemap.ts';

describe('basemapUrlProblem', () => {
  it('accepts https templates with z, x and y, and http from this computer', () => {
    expect(basemapUrlProblem('https://tile.openstreetmap.org/{z}/{x}/{y}.png')).toBeNull();
    expect(basemapUrlProblem('https://{a-c}.tiles.example.org/{z}/{x}/{y}@2x.png?key=1')).toBeNull();
    expect(basemapUrlProblem('http://127.0.0.1:8088/{z}/{x}/{y}.png')).toBeNull();
    expect(basemapUrlProblem(' http://localhost/{z}/{y}/{x} ')).toBeNull();
  });
  it('refuses other schemes, missing placeholders, remote http and credentials', () => {
    expect(basemapUrlProblem('ftp://x.org/{z}/{x}/{y}')).toMatch(/https:\/\//);
    expect(basemapUrlProblem('javascript:alert(1)//{z}{x}{y}')).toMatch(/https:\/\//);
    expect(basemapUrlProblem('https://x.org/{z}/{x}.png')).toMatch(/\{y\}/);
    expect(basemapUrlProblem('http://tiles.example.org/{z}/{x}/{y}.png')).toMatch(/only from this computer/);
    expect(basemapUrlProblem('https://user:pw@x.org/{z}/{x}/{y}.png')).toMatch(/user name/);
    expect(basemapUrlProblem('https://exa mple.org/{z}/{x}/{y}')).toMatch(/not a valid URL/);
  });
});
