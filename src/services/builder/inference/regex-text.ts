// Text written into the patterns of a draft's transforms (RE2 and JavaScript read them alike).

/** The text as a pattern matching itself: every character a pattern gives a meaning escaped. */
export const escapeRegex = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&');
