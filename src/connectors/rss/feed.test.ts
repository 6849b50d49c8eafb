import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseFeed } from './feed.ts';
import { itemDocument, itemKey } from './map.ts';

describe('rss: feed parsing', () => {
  it('Atom: xhtml content, out-of-line content falls back to the summary, source author, xml:base on the entry', () => {
    const feed = parseFeed(
      `<feed xmlns="http://www.w3.org/2005/Atom"><title type="html">A &lt;b&gt;B&lt;/b&gt;</title>
        <entry xml:base="https://x.test/blog/"><id>e1</id><title>One</title><link href="one"/>
          <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Hello <b>xhtml</b></p></div></content>
          <source><author><name>Src</name><email>SRC@X.TEST</email></author></source></entry>
        <entry><id>e2</id><title>Two</title><content src="https://x.test/two.pdf" type="application/pdf"/><summary>Just a summary</summary></entry>
      </feed>`,
      'https://x.test/feed.atom',
    );
    assert.equal(feed.format, 'atom');
    const [one, two] = feed.items;
    assert.equal(one?.link, 'https://x.test/blog/one');
    assert.equal(one?.author, 'src@x.test');
    assert.match(JSON.stringify(one?.body), /Hello <b[^>]*>xhtml<\/b>/);
    assert.deepEqual(two?.body, { text: 'Just a summary' });
    const doc = itemDocument('https://x.test/feed.atom', feed, one as NonNullable<typeof one>);
    assert.equal(doc.external_id, 'https://x.test/feed.atom#e1');
    assert.equal(doc.content, 'Hello xhtml');
    assert.equal(doc.metadata?.feed_title, 'A B');
  });

  it('RSS 2.0 without guid: the link is the key, else a hash of title and date; relative links resolve against the feed', () => {
    const feed = parseFeed(
      '<rss version="2.0"><channel><title>N</title><item><title>a</title><link>/a</link></item><item><title>b</title><pubDate>Tue, 10 Jun 2003 04:00:00 GMT</pubDate></item></channel></rss>',
      'https://n.test/feed',
    );
    assert.equal(feed.items[0]?.link, 'https://n.test/a');
    assert.equal(itemKey(feed.items[0] as NonNullable<(typeof feed.items)[0]>), 'https://n.test/a');
    assert.match(itemKey(feed.items[1] as NonNullable<(typeof feed.items)[1]>), /^sha256:[0-9a-f]{32}$/);
    assert.equal(feed.items[1]?.published, '2003-06-10T04:00:00.000Z');
  });

  it('refuses what is not a feed, entity declarations and broken XML', () => {
    assert.throws(() => parseFeed('<html><body/></html>', 'https://n.test/'), /not an RSS or Atom feed/);
    assert.throws(() => parseFeed('<!DOCTYPE rss [<!ENTITY x "y">]><rss/>', 'https://n.test/'), /entities/);
    assert.throws(() => parseFeed('<rss><channel>', 'https://n.test/'), /well-formed/);
  });
});
