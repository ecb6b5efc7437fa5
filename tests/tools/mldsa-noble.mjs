// mldsa-noble.mjs - @noble/post-quantum's ML-DSA-44 on the lines of
// tests/tools/mldsa_tool.c (xi pk ctx msg rnd sig, hex, "-" for empty).
//   node mldsa-noble.mjs verify   each line: keygen(xi) must give pk; the
//       signature must verify, must equal noble's own with the same rnd
//       (its rnd argument), and must fail with one byte flipped.
//       Prints "good N bad M".
//   node mldsa-noble.mjs sign N   N random keys, contexts, messages, rnds,
//       signed by noble, as lines.
//   node mldsa-noble.mjs composite PUBBLOB DATA SIGBLOB   (hex) an
//       ssh-mldsa44-ed25519@openssh.com signature over DATA: prints
//       "mldsa ok|bad ed25519 ok|bad", the ML-DSA-44 half checked by noble,
//       the Ed25519 half by node's crypto (OpenSSL), each over
//       M' = prefix || label || 0 || SHA-512(DATA) built here.
//   node mldsa-noble.mjs acvp FILE   the lines of
//       tests/unit/vectors/mldsa44-acvp.txt (format in
//       tests/unit/test_mldsa.c): keyGen, sigGen and sigVer, pure and
//       internal, each checked. Prints "good N bad M".
// Written for @noble/post-quantum 0.4.1 (tests/integration/lib-noble.sh):
// sign(secretKey, msg, ctx, rnd), verify(publicKey, msg, sig, ctx), and
// the internal interface as ml_dsa44.internal.
import { ml_dsa44 } from '@noble/post-quantum/ml-dsa.js';
import { randomBytes, createHash, createPublicKey, verify } from 'node:crypto';
import { readFileSync } from 'node:fs';

const hex = (b) => (b.length ? Buffer.from(b).toString('hex') : '-');
const unhex = (s) => (s === '-' ? new Uint8Array(0) : new Uint8Array(Buffer.from(s, 'hex')));
const same = (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

if (process.argv[2] === 'verify') {
  let good = 0, bad = 0;
  for (const line of readFileSync(0, 'utf8').split('\n')) {
    if (!line) continue;
    const [xi, pk, ctx, msg, rnd, sig] = line.split(' ').map(unhex);
    const k = ml_dsa44.keygen(xi);
    const ok = same(k.publicKey, pk) && ml_dsa44.verify(pk, msg, sig, ctx) &&
      same(ml_dsa44.sign(k.secretKey, msg, ctx, rnd), sig);
    const t = sig.slice(); t[(good * 7919) % t.length] ^= 0x10;
    if (ok && !ml_dsa44.verify(pk, msg, t, ctx)) good++; else bad++;
  }
  console.log(`good ${good} bad ${bad}`);
} else if (process.argv[2] === 'sign') {
  const n = Number(process.argv[3]);
  const out = [];
  for (let i = 0; i < n; i++) {
    const xi = randomBytes(32), rnd = randomBytes(32);
    const ctx = randomBytes(i % 3 === 0 ? 0 : i % 64), msg = randomBytes((i * 37) % 600);
    const k = ml_dsa44.keygen(xi);
    const sig = ml_dsa44.sign(k.secretKey, msg, ctx, rnd);
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
  const ml = okName && ml_dsa44.verify(pk.subarray(0, 1312), m, sig.subarray(0, 2420), label);
  const edKey = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), pk.subarray(1312)]), format: 'der', type: 'spki' });
  const ed = okName && verify(null, m, edKey, sig.subarray(2420));
  console.log(`mldsa ${ml ? 'ok' : 'bad'} ed25519 ${ed ? 'ok' : 'bad'}`);
} else if (process.argv[2] === 'acvp') {
  let good = 0, bad = 0;
  for (const line of readFileSync(process.argv[3], 'utf8').split('\n')) {
    const f = line.split(' '), v = f.map(unhex);
    let ok;
    if (f[0] === 'keygen') {
      const k = ml_dsa44.keygen(v[2]);
      ok = same(k.publicKey, v[3]) && same(k.secretKey, v[4]);
    } else if (f[0] === 'sign-ext') {
      ok = same(ml_dsa44.sign(v[2], v[4], v[3], v[5]), v[6]);
    } else if (f[0] === 'sign-int') {
      ok = same(ml_dsa44.internal.sign(v[2], v[4], v[5]), v[6]);
    } else if (f[0] === 'verify-ext') {
      ok = ml_dsa44.verify(v[2], v[4], v[5], v[3]) === (f[6] === '1');
    } else if (f[0] === 'verify-int') {
      ok = ml_dsa44.internal.verify(v[2], v[4], v[5]) === (f[6] === '1');
    } else {
      continue;
    }
    if (ok) good++; else bad++;
  }
  console.log(`good ${good} bad ${bad}`);
} else {
  console.error('usage: mldsa-noble.mjs verify | sign N | composite PUB DATA SIG | acvp FILE');
  process.exit(2);
}
