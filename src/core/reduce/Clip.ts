/**
 * Head-and-tail clipping of text that says how much it cut, without splitting
 * a surrogate pair.
 *
 * @since 0.1.0
 */

const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff

/**
 * The note that stands where text was cut.
 *
 * @since 0.1.0
 * @category formatting
 */
export const marker = (omitted: number, total: number): string =>
  `\n…[clipped: ${omitted} of ${total} characters omitted]…\n`

// The longest marker for any length a JavaScript string can have.
const longestMarker = marker(2 ** 53, 2 ** 53).length

/**
 * The smallest `max` for which {@link headTail} returns at most `max` characters.
 *
 * @since 0.1.0
 * @category constants
 */
export const minimumMax = longestMarker + 2

/**
 * Clips `text` to at most `max` characters (at least {@link minimumMax}),
 * keeping its head and its tail with a note of how much was cut between them.
 * Text within the limit is returned as it is, so clipping twice changes nothing.
 *
 * @since 0.1.0
 * @category clipping
 */
export const headTail = (text: string, max: number): string => headTailCounted(text, max).text

/**
 * {@link headTail}, also returning how many characters of `text` were cut;
 * `note` writes the note that stands where the text was cut (default {@link marker}).
 *
 * @since 0.1.0
 * @category clipping
 */
export const headTailCounted = (
  text: string,
  max: number,
  note: (omitted: number, total: number) => string = marker
): { readonly text: string; readonly omitted: number } => {
  if (text.length <= max) return { text, omitted: 0 }
  const limit = Math.max(max, minimumMax)
  // Size the note for the largest count it could show, so the result never passes the limit.
  const budget = Math.max(limit - note(text.length, text.length).length, 0)
  let headEnd = Math.ceil(budget / 2)
  let tailStart = text.length - Math.floor(budget / 2)
  if (headEnd > 0 && isHighSurrogate(text.charCodeAt(headEnd - 1))) headEnd--
  if (tailStart < text.length && isLowSurrogate(text.charCodeAt(tailStart))) tailStart++
  const omitted = tailStart - headEnd
  return { text: text.slice(0, headEnd) + note(omitted, text.length) + text.slice(tailStart), omitted }
}

/**
 * Shortens `text` to at most `max` characters with a trailing ellipsis; for
 * short labels (tool names, modes) where a note would not fit.
 *
 * @since 0.1.0
 * @category clipping
 */
export const label = (text: string, max: number): string => {
  if (text.length <= max) return text
  let end = max - 1
  if (end > 0 && isHighSurrogate(text.charCodeAt(end - 1))) end--
  return text.slice(0, end) + "…"
}
