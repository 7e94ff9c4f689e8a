// Plain JavaScript so that the benchmarks, which run under bare `node`, share it with the tests.

/**
 * Deterministic PRNG (mulberry32): the same seed gives the same sequence on every machine, so a
 * failing chunking can be replayed from its seed and benchmark inputs are the same bytes everywhere.
 * @param {number} seed
 * @returns {() => number} a function returning numbers in [0, 1)
 */
export function prng(seed) {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
