/**
 * Counting tokens in the shared core (docs/effect4.md), the same on both
 * faces: the approximate count (`TokenizerApprox`) and BPE counting linear
 * in the text over any byte-pair encoder and its pre-token pattern
 * (`TokenizerBpe` of each face gives it o200k_base, the tokenizer library
 * imported by the face).
 *
 * @since 0.1.0
 */

/**
 * The approximate count: a token per four characters, rounded up.
 *
 * @since 0.1.0
 * @category counting
 */
export const approximate = (text: string): number => Math.ceil(text.length / 4)

/**
 * The longest pre-token (a piece of text the `o200k_base` pattern splits off
 * before merging) counted whole; a longer one is counted in slices of this
 * many characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const longPreToken = 256

// Every pre-token longer than `longPreToken` holds a run of at least this many
// characters of one class (letters, punctuation, whitespace, or the `[\r\n/]`
// tail of a punctuation pre-token): a text without one has no long pre-token
// and is counted whole, exactly.
const runLength = Math.floor(longPreToken / 2) - 4

const isAsciiLetter = (code: number): boolean => (code >= 65 && code <= 90) || (code >= 97 && code <= 122)
const isAsciiDigit = (code: number): boolean => code >= 48 && code <= 57
const isAsciiSpace = (code: number): boolean => code === 32 || (code >= 9 && code <= 13)

/**
 * Whether a text may hold a pre-token longer than {@link longPreToken}: one
 * pass over its character codes, cheaper than a regular expression. A
 * character past ASCII continues every run (it may be a letter, a mark, a
 * symbol or a space), so the answer errs only towards yes.
 */
const mayHoldLongPreToken = (text: string): boolean => {
  let letters = 0
  let punctuation = 0
  let spaces = 0
  let tail = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code >= 128) {
      letters++
      punctuation++
      spaces++
      tail = 0
    } else if (isAsciiLetter(code)) {
      letters++
      punctuation = spaces = tail = 0
    } else if (isAsciiDigit(code)) {
      letters =
        punctuation =
        spaces =
        tail =
          0
    } else if (isAsciiSpace(code)) {
      spaces++
      letters = punctuation = 0
      tail = code === 10 || code === 13 ? tail + 1 : 0
    } else {
      punctuation++
      letters = spaces = 0
      tail = code === 47 ? tail + 1 : 0
    }
    if (letters >= runLength || punctuation >= runLength || spaces >= runLength || tail >= runLength) return true
  }
  return false
}

/** The end of a slice starting at `from`, never between the halves of a surrogate pair. */
const sliceEnd = (text: string, from: number, end: number): number => {
  const to = Math.min(from + longPreToken, end)
  const code = text.charCodeAt(to - 1)
  return to < end && code >= 0xd800 && code <= 0xdbff ? to - 1 : to
}

/**
 * A count that is linear in the text: `countWhole` on every stretch between
 * pre-tokens (split by `splitPattern`, the encoding's) longer than
 * {@link longPreToken}, and on each slice of those.
 * Exact (the same as `countWhole(text)`) when the text holds no such
 * pre-token, since byte pairs never merge across pre-tokens.
 *
 * @since 0.1.0
 * @category utils
 */
export const countLinear = (countWhole: (text: string) => number, splitPattern: RegExp) => (text: string): number => {
  if (text === "") return 0
  if (text.length <= longPreToken || !mayHoldLongPreToken(text)) return countWhole(text)
  const preTokens = new RegExp(splitPattern.source, "gu")
  let total = 0
  let cut = 0
  for (const match of text.matchAll(preTokens)) {
    const piece = match[0]
    if (piece.length <= longPreToken) continue
    const start = match.index
    const end = start + piece.length
    if (start > cut) total += countWhole(text.slice(cut, start))
    for (let from = start; from < end;) {
      const to = sliceEnd(text, from, end)
      total += countWhole(text.slice(from, to))
      from = to
    }
    cut = end
  }
  if (cut < text.length) total += countWhole(text.slice(cut))
  return total
}
