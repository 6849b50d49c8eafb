import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isContentMessage, messageToDocument, renderSlackText } from './map.ts';

const channel = { id: 'C1', name: 'enrique', is_private: false };
const users = { U1: 'Anthony Bilinski' };

describe('slack message mapping', () => {
  it('decodes the escapes Slack applies to text and renders its markup', () => {
    assert.equal(renderSlackText('&gt;"Essentially" in &lt;module&gt; &amp;&amp; done', users), '>"Essentially" in <module> && done');
    assert.equal(renderSlackText('ask <@U1> in <#C2|general>, <!here>', users), 'ask @Anthony Bilinski in #general, @here');
    assert.equal(renderSlackText('see <https://x.test/a?b=1&amp;c=2|the doc> or <mailto:a@b.test>', users), 'see the doc (https://x.test/a?b=1&c=2) or mailto:a@b.test');
  });

  it('indexes integration messages whose content is only in attachments (the shared export: GitHub commit notices)', () => {
    const m = {
      ts: '1454892394.000004',
      text: '',
      subtype: 'bot_message',
      bot_id: 'B0JL6RASU',
      username: 'github',
      attachments: [
        {
          fallback: '[enrique:master] <https://github.com/mesos-magellan/enrique/commit/ed1acbe|1 new commit> by Anthony Bilinski',
          text: '<https://github.com/mesos-magellan/enrique/commit/ed1acbe|ed1acbe>: executor with simulated annealing rough draft - Anthony Bilinski',
          pretext: '[enrique:master] 1 new commit by Anthony Bilinski:',
        },
      ],
    };
    assert.equal(isContentMessage(m), true);
    const doc = messageToDocument('https://t.slack.com', channel, m, users);
    assert.match(doc.content, /^\[enrique:master\] 1 new commit by Anthony Bilinski:\ned1acbe \(https:\/\/github.com\/.*\): executor with simulated annealing rough draft/);
    assert.equal(doc.author, 'github');
    assert.equal(doc.title, '#enrique — github');
  });

  it('uses an attachment fallback only when it has no title or text, and the bot profile name without a username', () => {
    const doc = messageToDocument('https://t.slack.com', channel, { ts: '1.000001', text: 'Deploy', bot_profile: { name: 'Narwhal CI' }, attachments: [{ fallback: 'build 42 green' }] }, users);
    assert.equal(doc.content, 'Deploy\nbuild 42 green');
    assert.equal(doc.author, 'Narwhal CI');
  });

  it('skips housekeeping and the tombstone left for a deleted thread root', () => {
    assert.equal(isContentMessage({ ts: '1.1', subtype: 'channel_join', text: '<@U1> has joined' }), false);
    assert.equal(isContentMessage({ ts: '1.1', subtype: 'tombstone', text: 'This message was deleted.' }), false);
    assert.equal(isContentMessage({ ts: '1.1', text: '  ', attachments: [] }), false);
  });
});
