// Deterministic pseudo-random values (xorshift), so a generated case that fails is reproduced by its seed.

/** `next()` in [0, 1) and `pick(items)`, from `seed`. */
export function xorshift(seed) {
  let state = seed >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  return { next, pick: (items) => items[Math.floor(next() * items.length)] };
}
