// mldsa-noble.mjs - @noble/post-quantum's ML-DSA-44 on the lines of
// tests/tools/mldsa_tool.c (xi pk ctx msg rnd sig, hex, "-" for empty).
//   node mldsa-noble.mjs verify   each line: keygen(xi) must give pk; the
//       signature must verify, must equal noble's own with the same rnd
//       (extraEntropy), and must fail with one byte flipped.
//       Prints "good N bad M".
//   node mldsa-noble.mjs sign N   N random keys, contexts, messages, rnds,
//       signed by noble, as lines.
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

const hex = (b) => (b.length ? Buffer.from(b).toString('hex') : '-');
const unhex = (s) => (s === '-' ? new Uint8Array(0) : new Uint8Array(Buffer.from(s, 'hex')));

if (process.argv[2] === 'verify') {
  let good = 0, bad = 0;
  for (const line of readFileSync(0, 'utf8').split('\n')) {
    if (!line) continue;
    const [xi, pk, ctx, msg, rnd, sig] = line.split(' ').map(unhex);
    const k = ml_dsa44.keygen(xi);
    const ok = Buffer.compare(Buffer.from(k.publicKey), Buffer.from(pk)) === 0 &&
      ml_dsa44.verify(sig, msg, pk, { context: ctx }) &&
      Buffer.compare(Buffer.from(ml_dsa44.sign(msg, k.secretKey, { context: ctx, extraEntropy: rnd })),
        Buffer.from(sig)) === 0;
    const t = sig.slice(); t[(good * 7919) % t.length] ^= 0x10;
    if (ok && !ml_dsa44.verify(t, msg, pk, { context: ctx })) good++; else bad++;
  }
  console.log(`good ${good} bad ${bad}`);
} else if (process.argv[2] === 'sign') {
  const n = Number(process.argv[3]);
  const out = [];
  for (let i = 0; i < n; i++) {
    const xi = randomBytes(32), rnd = randomBytes(32);
    const ctx = randomBytes(i % 3 === 0 ? 0 : i % 64), msg = randomBytes((i * 37) % 600);
    const k = ml_dsa44.keygen(xi);
    const sig = ml_dsa44.sign(msg, k.secretKey, { context: ctx, extraEntropy: rnd });
    out.push([xi, k.publicKey, ctx, msg, rnd, sig].map(hex).join(' '));
  }
  console.log(out.join('\n'));
} else {
  console.error('usage: mldsa-noble.mjs verify | sign N');
  process.exit(2);
}
