import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { robotsAllows, robotsPolicy } from './robots.ts';

describe('robots.txt (RFC 9309)', () => {
  const txt = [
    '# comment',
    'User-agent: *',
    'Disallow: /private/',
    'Allow: /private/open.html',
    'Disallow: /*.pdf$',
    'Crawl-delay: 2',
    '',
    'User-Agent: OtherBot',
    'user-agent: AtriumBot # two agents, one group',
    'Disallow: /atrium-only',
    'Disallow:',
    '',
    'Sitemap: https://example.com/sitemap.xml',
  ].join('\r\n');

  it('uses the groups naming the product token (case-insensitive), else *', () => {
    const mine = robotsPolicy(txt, 'atriumbot');
    assert.equal(robotsAllows(mine, '/atrium-only/x'), false);
    assert.equal(robotsAllows(mine, '/private/a'), true, 'the * group does not apply when a group names the crawler');
    const other = robotsPolicy(txt, 'SomeCrawler');
    assert.equal(robotsAllows(other, '/private/a'), false);
    assert.equal(other.crawlDelay, 2);
    assert.deepEqual(other.sitemaps, ['https://example.com/sitemap.xml']);
  });

  it('the longest match wins, allow wins a tie; * and $ are special', () => {
    const p = robotsPolicy(txt, 'x');
    assert.equal(robotsAllows(p, '/private/open.html'), true);
    assert.equal(robotsAllows(p, '/private/closed.html'), false);
    assert.equal(robotsAllows(p, '/docs/a.pdf'), false);
    assert.equal(robotsAllows(p, '/docs/a.pdf?x=1'), true, '$ anchors the end');
    assert.equal(robotsAllows(robotsPolicy('User-agent: *\nDisallow: /a\nAllow: /a', 'x'), '/a'), true);
  });

  it('no group, an empty disallow, or /robots.txt itself: allowed', () => {
    assert.equal(robotsAllows(robotsPolicy('', 'x'), '/anything'), true);
    assert.equal(robotsAllows(robotsPolicy('User-agent: *\nDisallow:', 'x'), '/anything'), true);
    assert.equal(robotsAllows(robotsPolicy('User-agent: *\nDisallow: /', 'x'), '/robots.txt'), true);
    assert.equal(robotsAllows(robotsPolicy('User-agent: *\nDisallow: /', 'x'), '/'), false);
  });

  it('rules before any user-agent line are ignored; several matching groups combine', () => {
    const p = robotsPolicy('Disallow: /x\nUser-agent: a\nDisallow: /one\nUser-agent: b\nDisallow: /two\nUser-agent: a\nDisallow: /three', 'a');
    assert.equal(robotsAllows(p, '/x'), true);
    assert.equal(robotsAllows(p, '/one'), false);
    assert.equal(robotsAllows(p, '/two'), true);
    assert.equal(robotsAllows(p, '/three'), false);
  });

  it('compares percent-encoded paths octet for octet', () => {
    const p = robotsPolicy('User-agent: *\nDisallow: /café\nDisallow: /a%3cd', 'x');
    assert.equal(robotsAllows(p, new URL('https://e.com/café/menu').pathname), false);
    assert.equal(robotsAllows(p, '/a%3Cd'), false);
  });
});
