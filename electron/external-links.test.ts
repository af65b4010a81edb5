// Which window.open addresses main hands the system browser (electron/external-links.ts), under plain Node: only the
// host's announced web links, for a while, and nothing that merely looks like one; one off its service's origin only
// after the user said so.
import { describe, expect, it } from 'vitest';
import { EXTERNAL_LINK, isExternalLink } from '../core/host-protocol.ts';
import { EXTERNAL_LINK_TTL_MS, ExternalLinks, externalUrl, linkDialog, MAX_EXTERNAL_LINKS, OPEN_BUTTON } from './external-links.ts';

const MAP = 'https://service.example/embed/acc-1/map?metadata%5Bcrop%5D=wheat&key=ek_123';
/** The account's service, as the host announces it beside the link. */
const SERVICE = 'https://service.example';

function links(start = 1_000_000): { links: ExternalLinks; advance(ms: number): void } {
  let t = start;
  return { links: new ExternalLinks(() => t), advance: (ms) => { t += ms; } };
}

/** The address main opens at once for the page's `url`, or null (asked first, or nothing). */
const opens = (l: ExternalLinks, url: string) => {
  const d = l.decide(url);
  return d?.action === 'open' ? d.href : null;
};

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
    l.announce(MAP, SERVICE);
    expect(opens(l, MAP)).toBe(MAP);
    expect(opens(l, MAP)).toBe(MAP);
    // The same address spelled as Chromium may hand it (scheme and host in lower case) is the same address.
    expect(opens(l, MAP.replace('https://service.example', 'HTTPS://SERVICE.EXAMPLE'))).toBe(MAP);
  });

  it('refuses what the host did not announce', () => {
    const { links: l } = links();
    expect(l.decide(MAP)).toBeNull();
    l.announce(MAP, SERVICE);
    expect(l.decide('https://evil.example/')).toBeNull();
    expect(l.decide('https://service.example/embed/acc-2/map')).toBeNull();
  });

  it('refuses javascript:, file:, smb:, app: and credentials even when announced', () => {
    const { links: l } = links();
    const bad = ['javascript:alert(1)', 'file:///etc/passwd', 'smb://server/share', 'app://furrow/index.html', 'https://user:pw@service.example/embed'];
    for (const url of bad) l.announce(url, SERVICE);
    expect(l.size).toBe(0);
    for (const url of bad) expect(l.decide(url), url).toBeNull();
  });

  it('refuses lookalikes: trailing characters, another case in the path or query, credentials, another port or scheme', () => {
    const { links: l } = links();
    l.announce(MAP, SERVICE);
    for (const url of [
      `${MAP}x`, `${MAP}&x=1`, `${MAP}#`, `${MAP}#frag`, `${MAP}/`, `${MAP}%20`,
      MAP.replace('/embed/', '/Embed/'), MAP.replace('wheat', 'Wheat'), MAP.replace('https://', 'https://user@'), MAP.replace('https://', 'https://user:pw@'),
      MAP.replace('service.example', 'service.example:8443'), MAP.replace('https:', 'http:'), MAP.replace('service.example', 'service.example.evil.example'),
      'https://service.example/embed/acc-1/map',
    ]) expect(l.decide(url), url).toBeNull();
  });

  it('forgets a link once it has expired', () => {
    const { links: l, advance } = links();
    l.announce(MAP, SERVICE);
    advance(EXTERNAL_LINK_TTL_MS - 1);
    expect(opens(l, MAP)).toBe(MAP);
    advance(1);
    expect(l.decide(MAP)).toBeNull();
    expect(l.size).toBe(0);
    // Announced again (the user asked for the map again): open again, for a fresh while.
    l.announce(MAP, SERVICE);
    advance(EXTERNAL_LINK_TTL_MS - 1);
    expect(opens(l, MAP)).toBe(MAP);
  });

  it('keeps only the newest links', () => {
    const { links: l, advance } = links();
    const url = (i: number) => `https://service.example/embed/acc-${i}/map`;
    for (let i = 0; i < MAX_EXTERNAL_LINKS + 5; i++) {
      l.announce(url(i), SERVICE);
      advance(1);
    }
    expect(l.size).toBe(MAX_EXTERNAL_LINKS);
    expect(l.decide(url(0))).toBeNull();
    expect(l.decide(url(4))).toBeNull();
    expect(opens(l, url(5))).toBe(url(5));
    // Announcing an old one again makes it the newest: the oldest other one goes instead.
    l.announce(url(5), SERVICE);
    l.announce(url(100), SERVICE);
    expect(opens(l, url(5))).toBe(url(5));
    expect(l.decide(url(6))).toBeNull();
  });

  it("takes the host's announcement message as core/host-protocol.ts declares it", () => {
    const { links: l } = links();
    const message: unknown = { type: EXTERNAL_LINK, url: MAP, service: SERVICE };
    if (isExternalLink(message)) l.announce(message.url, message.service);
    expect(opens(l, MAP)).toBe(MAP);
    expect(isExternalLink({ type: EXTERNAL_LINK, url: 42, service: SERVICE })).toBe(false);
    // Without the service it came from, it is not an announcement.
    expect(isExternalLink({ type: EXTERNAL_LINK, url: MAP })).toBe(false);
    expect(isExternalLink({ type: EXTERNAL_LINK, url: MAP, service: 42 })).toBe(false);
  });

  it("asks the user first for a link off its service's origin: a service the page connected answers any link", () => {
    const { links: l } = links();
    // What a service the page controls answered (GET /api/accounts/<id>/ with an embedded_url of its choosing).
    const phish = 'https://phish.example/login?look=like-your-bank';
    l.announce(phish, 'http://127.0.0.1:47001');
    expect(l.decide(phish)).toEqual({ action: 'ask', href: phish, host: 'phish.example', service: '127.0.0.1:47001' });
    expect(opens(l, phish)).toBeNull();
    // Another port, scheme or host of the service is another origin: asked too.
    for (const [url, service] of [
      ['https://service.example:8443/embed/acc-1/map', SERVICE], ['http://service.example/embed/acc-1/map', SERVICE],
      ['https://maps.service.example/embed/acc-1/map', SERVICE], ['https://service.example/embed', 'https://service.example.evil.example'],
    ]) {
      l.announce(url, service);
      expect(l.decide(url!), url).toMatchObject({ action: 'ask', href: url });
    }
    // A service behind a path prefix still opens its own links at once; a service address that is not one asks.
    l.announce('https://example.org/furrow/embed/acc-1/map', 'https://example.org/furrow');
    expect(opens(l, 'https://example.org/furrow/embed/acc-1/map')).toBe('https://example.org/furrow/embed/acc-1/map');
    l.announce('https://example.org/embed', 'not a service');
    expect(l.decide('https://example.org/embed')).toMatchObject({ action: 'ask', service: "the account's service" });
    // An internationalized name is shown as the URL parser writes it, not in lookalike letters.
    l.announce('https://\u0440\u0430y\u0440\u0430l.example/map', SERVICE);
    expect(l.decide('https://\u0440\u0430y\u0440\u0430l.example/map')).toMatchObject({ action: 'ask', host: expect.stringMatching(/^xn--/) });
  });

  it('words the dialog with the site and the service named, Cancel the default', () => {
    const { links: l } = links();
    l.announce('https://phish.example/login', 'http://127.0.0.1:47001');
    const ask = l.decide('https://phish.example/login');
    if (ask?.action !== 'ask') throw new Error('not asked');
    const d = linkDialog(ask);
    expect(d).toMatchObject({ message: 'Open phish.example in your browser?', defaultId: 0, cancelId: 0 });
    expect(d.detail).toMatch(/^The embedded map of 127\.0\.0\.1:47001 is there/);
    expect([d.buttons[d.defaultId], d.buttons[OPEN_BUTTON]]).toEqual(['Cancel', 'Open']);
  });
});
