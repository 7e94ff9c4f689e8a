/** The capitals written in a PNG, left to right; '' when it sees none. */
export function textIn(bytes: Buffer): string
