/**
 * SHA-256 (FIPS 180-4) of short texts, as one plain function over reused buffers: pod names hash
 * one seed per pod, 40,000 of them for 400 Deployments of 100 replicas, and a general-purpose
 * hasher (a new object, buffers and views per message) spent most of that time setting itself up.
 * The test compares it with @noble/hashes.
 */

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);
const INITIAL = [
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
];
const W = new Uint32Array(64);
const H = new Int32Array(8);
const digest = new Uint8Array(32);
const encoder = new TextEncoder();
let scratch = new Uint8Array(256);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/** The 64-byte block `b` of the padded message: the bytes, 0x80, zeros, the length in bits. */
function loadBlock(bytes: Uint8Array, n: number, b: number, last: boolean): void {
  for (let t = 0; t < 16; t++) {
    let w = 0;
    for (let k = 0, i = b * 64 + t * 4; k < 4; k++, i++)
      w = (w << 8) | (i < n ? (bytes[i] as number) : i === n ? 0x80 : 0);
    W[t] = w;
  }
  if (last) {
    W[14] = Math.floor(n / 2 ** 29);
    W[15] = n << 3;
  }
}

function compress(): void {
  for (let t = 16; t < 64; t++) {
    const x = W[t - 15] as number;
    const y = W[t - 2] as number;
    const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
    const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
    W[t] = (W[t - 16] as number) + s0 + (W[t - 7] as number) + s1;
  }
  let a = H[0] as number;
  let b = H[1] as number;
  let c = H[2] as number;
  let d = H[3] as number;
  let e = H[4] as number;
  let f = H[5] as number;
  let g = H[6] as number;
  let h = H[7] as number;
  for (let t = 0; t < 64; t++) {
    const t1 =
      (h +
        (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) +
        ((e & f) ^ (~e & g)) +
        (K[t] as number) +
        (W[t] as number)) |
      0;
    const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  H[0] = (H[0] as number) + a;
  H[1] = (H[1] as number) + b;
  H[2] = (H[2] as number) + c;
  H[3] = (H[3] as number) + d;
  H[4] = (H[4] as number) + e;
  H[5] = (H[5] as number) + f;
  H[6] = (H[6] as number) + g;
  H[7] = (H[7] as number) + h;
}

/** The bytes of `text` in UTF-8: ASCII copied into a reused buffer, anything else encoded. */
function utf8(text: string): Uint8Array {
  if (text.length > scratch.length) scratch = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return encoder.encode(text);
    scratch[i] = c;
  }
  return scratch.subarray(0, text.length);
}

/** SHA-256 of the UTF-8 bytes of `text`; the result is a reused buffer, overwritten next call. */
export function sha256Text(text: string): Uint8Array {
  const bytes = utf8(text);
  const n = bytes.length;
  const blocks = Math.ceil((n + 9) / 64);
  H.set(INITIAL);
  for (let b = 0; b < blocks; b++) {
    loadBlock(bytes, n, b, b === blocks - 1);
    compress();
  }
  for (let i = 0; i < 32; i++) digest[i] = (H[i >> 2] as number) >>> (24 - 8 * (i & 3));
  return digest;
}
