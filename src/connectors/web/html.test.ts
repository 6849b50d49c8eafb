import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readHtml } from './html.ts';
import { parseSitemap } from './sitemap.ts';
import { crawlScope, normalizeUrl } from './url.ts';

describe('web: reading pages, sitemaps and the scope', () => {
  it('links resolve against <base href>, once each, fragments dropped; comments, scripts and non-http links ignored', () => {
    const page = readHtml(
      `<html><head><base href="/docs/"><title>T &amp; U</title><link rel="alternate canonical" href='guide'></head><body>
       <!-- <a href="/hidden">x</a> --><script>document.write('<a href="/js">')</script>
       <a href="intro#top">a</a><A HREF=intro>b</A><a href="mailto:x@y.z">m</a><a href="javascript:void(0)">j</a><a href="https://other.test/x?a=1&amp;b=2">o</a></body></html>`,
      'https://site.test/start',
    );
    assert.deepEqual(page.links, ['https://site.test/docs/intro', 'https://other.test/x?a=1&b=2']);
    assert.equal(page.canonical, 'https://site.test/docs/guide');
    assert.equal(page.title, 'T & U');
    assert.equal(page.noindex, false);
  });

  it('<meta name="robots"> noindex / nofollow / none; the first <h1> when there is no <title>', () => {
    const p = readHtml('<meta name="ROBOTS" content="NoIndex, nofollow"><h1>Hello <b>there</b></h1>', 'https://s.test/');
    assert.deepEqual([p.noindex, p.nofollow, p.title], [true, true, 'Hello there']);
    assert.deepEqual([readHtml('<meta name="robots" content="none">', 'https://s.test/').nofollow], [true]);
  });

  it('normalizes URLs: scheme and host lower-cased, default port and fragment dropped, only http(s)', () => {
    assert.equal(normalizeUrl('HTTPS://Site.TEST:443/a#b'), 'https://site.test/a');
    assert.equal(normalizeUrl('http://site.test'), 'http://site.test/');
    assert.equal(normalizeUrl('ftp://site.test/x'), null);
    assert.equal(normalizeUrl('::not a url'), null);
  });

  it('scope: the seeds\' origins and allowed ones, include globs (seeds always in), exclude wins', () => {
    const s = crawlScope({ seed_urls: ['https://a.test/'], sitemap_url: undefined, allowed_origins: ['https://b.test'], include_patterns: ['/docs/**'], exclude_patterns: ['/docs/old/**'] });
    assert.equal(s.inScope('https://a.test/'), true);
    assert.equal(s.inScope('https://a.test/docs/x'), true);
    assert.equal(s.inScope('https://b.test/docs/x'), true);
    assert.equal(s.inScope('https://a.test/blog'), false);
    assert.equal(s.inScope('https://a.test/docs/old/x'), false);
    assert.equal(s.inScope('https://c.test/docs/x'), false);
    assert.equal(s.inScope('http://a.test/docs/x'), false, 'another scheme is another origin');
  });

  it('sitemaps: urlset and index read by local name; not-XML and entity declarations refused', () => {
    const set = parseSitemap('<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc> https://a.test/x </loc><lastmod>2026-01-01</lastmod></url><url></url></urlset>');
    assert.deepEqual(set, { urls: [{ loc: 'https://a.test/x', lastmod: '2026-01-01' }], sitemaps: [] });
    assert.deepEqual(parseSitemap('<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap></sitemapindex>').sitemaps, ['https://a.test/s1.xml']);
    assert.throws(() => parseSitemap('<html><body>no</body></html>'), /not a sitemap/);
    assert.throws(() => parseSitemap('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "b">]><urlset/>'), /entities/);
    assert.throws(() => parseSitemap('<urlset><url>'), /well-formed/);
  });
});
