/**
 * Interim classifier (replaced at integration by the failure branch's module).
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"

/** @since 0.1.0 */
export interface Verdict {
  readonly provider: string
  readonly limit: Option.Option<number>
}

const patterns: ReadonlyArray<readonly [string, RegExp]> = [
  ["openai", /context_length_exceeded|maximum context length/i],
  ["anthropic", /prompt is too long/i],
  ["local", /exceeds the available context size|context window|too many tokens/i]
]

/** @since 0.1.0 */
export const classify = (error: { readonly status: number; readonly body: string }): Option.Option<Verdict> => {
  if (error.status < 400) return Option.none()
  for (const [provider, pattern] of patterns) {
    if (pattern.test(error.body)) {
      const limit = /maximum context length is (\d+)|maximum: (\d+)|> (\d+) maximum/i.exec(error.body)
      const value = limit === null ? undefined : Number(limit[1] ?? limit[2] ?? limit[3])
      return Option.some({ provider, limit: value === undefined ? Option.none() : Option.some(value) })
    }
  }
  return Option.none()
}
