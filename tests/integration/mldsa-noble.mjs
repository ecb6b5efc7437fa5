// mldsa-noble.mjs - @noble/post-quantum's ML-DSA-44 on the lines of
// tests/tools/mldsa_tool.c (xi pk ctx msg rnd sig, hex, "-" for empty).
//   node mldsa-noble.mjs verify   each line: keygen(xi) must give pk; the
//       signature must verify, must equal noble's own with the same rnd
//       (extraEntropy), and must fail with one byte flipped.
//       Prints "good N bad M".
//   node mldsa-noble.mjs sign N   N random keys, contexts, messages, rnds,
//       signed by noble, as lines.
//   node mldsa-noble.mjs composite PUBBLOB DATA SIGBLOB   (hex) an
//       ssh-mldsa44-ed25519@openssh.com signature over DATA: prints
//       "mldsa ok|bad ed25519 ok|bad", the ML-DSA-44 half checked by noble,
//       the Ed25519 half by node's crypto (OpenSSL), each over
//       M' = prefix || label || 0 || SHA-512(DATA) built here.
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { randomBytes, createHash, createPublicKey, verify } from 'node:crypto';
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
} else if (process.argv[2] === 'composite') {
  const str = (b, o) => { const n = b.readUInt32BE(o); return [b.subarray(o + 4, o + 4 + n), o + 4 + n]; };
  const pub = Buffer.from(process.argv[3], 'hex'), sb = Buffer.from(process.argv[5], 'hex');
  const data = Buffer.from(process.argv[4], 'hex');
  const [pname, o1] = str(pub, 0); const [pk] = str(pub, o1);
  const [sname, o2] = str(sb, 0); const [sig] = str(sb, o2);
  const label = Buffer.from('COMPSIG-MLDSA44-Ed25519-SHA512');
  const m = Buffer.concat([Buffer.from('CompositeAlgorithmSignatures2025'), label,
    Buffer.from([0]), createHash('sha512').update(data).digest()]);
  const okName = pname.toString() === 'ssh-mldsa44-ed25519@openssh.com' && sname.toString() === pname.toString() &&
    pk.length === 1344 && sig.length === 2484;
  const ml = okName && ml_dsa44.verify(sig.subarray(0, 2420), m, pk.subarray(0, 1312), { context: label });
  const edKey = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pk.subarray(1312)]), format: 'der', type: 'spki' });
  const ed = okName && verify(null, m, edKey, sig.subarray(2420));
  console.log(`mldsa ${ml ? 'ok' : 'bad'} ed25519 ${ed ? 'ok' : 'bad'}`);
} else {
  console.error('usage: mldsa-noble.mjs verify | sign N');
  process.exit(2);
}
