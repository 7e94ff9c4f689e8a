// Types of prng.mjs for the TypeScript specs: allowJs is off, so the JSDoc there is not read.
export declare function prng(seed: number): () => number
