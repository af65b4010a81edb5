// Which window.open addresses main hands the system browser (electron/external-links.ts), under plain Node: only the
// host's announced web links, for a while, and nothing that merely looks like one.
import { describe, expect, it } from 'vitest';
import { EXTERNAL_LINK, isExternalLink } from '../core/host-protocol.ts';
import { EXTERNAL_LINK_TTL_MS, ExternalLinks, externalUrl, MAX_EXTERNAL_LINKS } from './external-links.ts';

const MAP = 'https://service.example/embed/acc-1/map?metadata%5Bcrop%5D=wheat&key=ek_123';

function links(start = 1_000_000): { links: ExternalLinks; advance(ms: number): void } {
  let t = start;
  return { links: new ExternalLinks(() => t), advance: (ms) => { t += ms; } };
}

describe('externalUrl', () => {
  it('passes http and https addresses, as the URL parser spells them', () => {
    expect(externalUrl(MAP)).toBe(MAP);
    expect(externalUrl('http://127.0.0.1:8080/embed')).toBe('http://127.0.0.1:8080/embed');
    expect(externalUrl('HTTPS://Service.Example')).toBe('https://service.example/');
  });
  it('refuses other schemes, credentials, what does not parse, and what is not a string', () => {
    for (const url of [
      'javascript:alert(1)', 'file:///etc/passwd', 'smb://server/share', 'app://furrow/index.html', 'data:text/html,x', 'ms-settings:', 'mailto:a@b.example',
      'https://user:pw@service.example/', 'https://service.example@evil.example/', 'https://:pw@service.example/', 'not a url', '//service.example/', '',
    ]) expect(externalUrl(url), url).toBeNull();
    expect(externalUrl(42)).toBeNull();
    expect(externalUrl(`https://service.example/${'a'.repeat(9000)}`)).toBeNull();
  });
});

describe('ExternalLinks', () => {
  it('opens an announced link, after its check, as often as asked while it is fresh', () => {
    const { links: l } = links();
    l.announce(MAP);
    expect(l.opens(MAP)).toBe(MAP);
    expect(l.opens(MAP)).toBe(MAP);
    // The same address spelled as Chromium may hand it (scheme and host in lower case) is the same address.
    expect(l.opens(MAP.replace('https://service.example', 'HTTPS://SERVICE.EXAMPLE'))).toBe(MAP);
  });

  it('refuses what the host did not announce', () => {
    const { links: l } = links();
    expect(l.opens(MAP)).toBeNull();
    l.announce(MAP);
    expect(l.opens('https://evil.example/')).toBeNull();
    expect(l.opens('https://service.example/embed/acc-2/map')).toBeNull();
  });

  it('refuses javascript:, file:, smb:, app: and credentials even when announced', () => {
    const { links: l } = links();
    const bad = ['javascript:alert(1)', 'file:///etc/passwd', 'smb://server/share', 'app://furrow/index.html', 'https://user:pw@service.example/embed'];
    for (const url of bad) l.announce(url);
    expect(l.size).toBe(0);
    for (const url of bad) expect(l.opens(url), url).toBeNull();
  });

  it('refuses lookalikes: trailing characters, another case in the path or query, credentials, another port or scheme', () => {
    const { links: l } = links();
    l.announce(MAP);
    for (const url of [
      `${MAP}x`, `${MAP}&x=1`, `${MAP}#`, `${MAP}#frag`, `${MAP}/`, `${MAP}%20`,
      MAP.replace('/embed/', '/Embed/'), MAP.replace('wheat', 'Wheat'), MAP.replace('https://', 'https://user@'), MAP.replace('https://', 'https://user:pw@'),
      MAP.replace('service.example', 'service.example:8443'), MAP.replace('https:', 'http:'), MAP.replace('service.example', 'service.example.evil.example'),
      'https://service.example/embed/acc-1/map',
    ]) expect(l.opens(url), url).toBeNull();
  });

  it('forgets a link once it has expired', () => {
    const { links: l, advance } = links();
    l.announce(MAP);
    advance(EXTERNAL_LINK_TTL_MS - 1);
    expect(l.opens(MAP)).toBe(MAP);
    advance(1);
    expect(l.opens(MAP)).toBeNull();
    expect(l.size).toBe(0);
    // Announced again (the user asked for the map again): open again, for a fresh while.
    l.announce(MAP);
    advance(EXTERNAL_LINK_TTL_MS - 1);
    expect(l.opens(MAP)).toBe(MAP);
  });

  it('keeps only the newest links', () => {
    const { links: l, advance } = links();
    const url = (i: number) => `https://service.example/embed/acc-${i}/map`;
    for (let i = 0; i < MAX_EXTERNAL_LINKS + 5; i++) {
      l.announce(url(i));
      advance(1);
    }
    expect(l.size).toBe(MAX_EXTERNAL_LINKS);
    expect(l.opens(url(0))).toBeNull();
    expect(l.opens(url(4))).toBeNull();
    expect(l.opens(url(5))).toBe(url(5));
    // Announcing an old one again makes it the newest: the oldest other one goes instead.
    l.announce(url(5));
    l.announce(url(100));
    expect(l.opens(url(5))).toBe(url(5));
    expect(l.opens(url(6))).toBeNull();
  });

  it("takes the host's announcement message as core/host-protocol.ts declares it", () => {
    const { links: l } = links();
    const message: unknown = { type: EXTERNAL_LINK, url: MAP };
    if (isExternalLink(message)) l.announce(message.url);
    expect(l.opens(MAP)).toBe(MAP);
    expect(isExternalLink({ type: EXTERNAL_LINK, url: 42 })).toBe(false);
  });
});
