/**
 * The engine's calls the two faces are compared over (`test-effect4/test/compactor.test.ts`): for a
 * transcript, a session that grows to it (a checkpoint every eighth of it, at least every 10
 * messages), then a manual compaction with instructions and an overflow the provider reported,
 * at each of three windows, each window a fresh engine over the test layers with the offline
 * summariser. Plain data and plain functions, so that the Effect 3 program
 * (`Effect3Compactions.ts`) and the Effect 4 test run the same calls.
 */

/** The windows the calls run at. */
export const windows: ReadonlyArray<number> = [8_000, 32_000, 128_000]

/** One call of the engine: which entry, over how much of the transcript. */
export type Call =
  | { readonly entry: "checkpoint"; readonly length: number }
  | { readonly entry: "compactNow"; readonly length: number; readonly instructions: string }
  | { readonly entry: "contextOverflow"; readonly length: number; readonly promptTokens: number }

/** The calls of a session growing to a transcript of `length` messages at a window. */
export const callsOf = (length: number, window: number): ReadonlyArray<Call> => {
  const step = Math.max(10, Math.ceil(length / 8))
  const lengths: Array<number> = []
  for (let at = step; at < length; at += step) lengths.push(at)
  lengths.push(length)
  return [
    ...lengths.map((at): Call => ({ entry: "checkpoint", length: at })),
    { entry: "compactNow", length, instructions: "focus on the files changed and the failing tests" },
    { entry: "contextOverflow", length, promptTokens: window + 1_000 }
  ]
}

/** What a call gave, each face's values encoded by its own Schemas. */
export type Answer =
  | {
    readonly view: unknown
    readonly tokens: number
    readonly trigger: number
    readonly compacted: unknown
    readonly ladder: unknown
    readonly repairs: unknown
    readonly prefixStable: boolean | undefined
    readonly sinceCompaction: number | undefined
  }
  | { readonly error: { readonly reason: string; readonly message: string } }

/** The runs of one transcript: the answers of its calls at each window. */
export type Runs = ReadonlyArray<{ readonly window: number; readonly answers: ReadonlyArray<Answer> }>
