import { loadCorpus, vectorOf } from './bench/peers/corpus.ts';
import { openPeer } from './bench/peers/engines.ts';
import fs from 'node:fs';
fs.rmSync('/tmp/lx3', { recursive: true, force: true }); fs.mkdirSync('/tmp/lx3');
const { docs, vectors } = await loadCorpus(100000);
console.log('loaded');
const peer = await openPeer('lancedb', '/tmp/lx3', true);
for (let i = 0; i < docs.length; i += 1000) {
  const rows = docs.slice(i, i + 1000).map((d, j) => ({ ...d, vector: vectorOf(vectors, i + j) }));
  await peer.add(rows);
  if (i % 10000 === 0) console.log('batch', i);
}
console.log('added');
const s = Date.now(); await peer.finish(true); console.log('finish', Date.now() - s);
