// Text written into the patterns of a draft's transforms (RE2 and JavaScript read them alike).

/** The text as a pattern matching itself: every character a pattern gives a meaning escaped. */
export const escapeRegex = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');

/** Any space in a pattern, the no-break (U+00A0) and ideographic (U+3000) ones among them: RE2's \s is ASCII only. */
export const SPACE = String.raw`[\s\p{Z}]`;
