/**
 * One scenario of operations on the test layers, as plain data (no Effect import), run by each
 * face over its own layers: the Effect 3 face by `Effect3Layers.ts` in a process of its own, the
 * Effect 4 face by `test-effect4/test/layers.test.ts`, which checks both give the same outcomes.
 * Messages and states are given encoded; each face decodes them with its own Schemas.
 */

/** A summariser error of the script. */
export interface ScriptedError {
  readonly reason: "timeout" | "rate-limited"
  readonly message: string
}

/** The scripted summariser: its script, whether it repeats its last step, and how many calls are made. */
export const summarizerRuns: ReadonlyArray<{
  readonly script: ReadonlyArray<string | ScriptedError>
  readonly repeatLast: boolean
  readonly calls: number
}> = [
  { script: ["first", { reason: "timeout", message: "no reply in 60 s" }, "second"], repeatLast: false, calls: 5 },
  { script: ["only", { reason: "rate-limited", message: "slow down" }], repeatLast: true, calls: 4 },
  { script: [], repeatLast: false, calls: 1 }
]

/** A request for the summariser (encoded `SummaryRequest` fields). */
export const request = {
  model: "gpt-5",
  system: "Summarise.",
  prompt: "The span.",
  maxTokens: 400,
  agentic: true,
  namespace: "ns",
  span: [{ _tag: "User", id: "u1", content: "Fix the parser." }]
} as const

/** Fixed settings: overrides given to `SettingsFixed.layer`, out-of-range ones included. */
export const fixedOverrides: ReadonlyArray<Record<string, number | string>> = [
  {},
  { summaryMaxTokens: 2_000 },
  { triggerPct: 200, keepFraction: -1 },
  { capTokens: 1e15, summaryRequest: "shared-prefix" }
]

/** Changes made through `SettingsControl.set` one after another, each read back. */
export const refChanges: ReadonlyArray<Record<string, number>> = [
  { triggerPct: 50 },
  { keepFraction: 0.5, capTokens: 1e15 },
  { triggerPct: 5 }
]

/** A stored state of session `s1`, encoded, with `compactions` and `updatedAt` to set. */
export const stateOf = (compactions: number, updatedAt: number | null = 5) => ({
  sessionId: "s1",
  compactions,
  block: { _tag: "Compacted", id: "b", content: `summary ${compactions}`, firstReplacedId: "m1", lastReplacedId: "m9" },
  boundaryId: "m10",
  pinnedIds: ["m2"],
  updatedAt
})

/** One operation on the compaction store. `updatedAt: null` makes a state that does not survive its JSON. */
export type StoreOperation =
  | { readonly op: "load" }
  | { readonly op: "save"; readonly compactions: number; readonly updatedAt?: null }
  | { readonly op: "saveIfCurrent"; readonly compactions: number; readonly expected: number }

/** Operations on the memory store, in order. */
export const storeOperations: ReadonlyArray<StoreOperation> = [
  { op: "load" },
  { op: "saveIfCurrent", compactions: 1, expected: 7 },
  { op: "saveIfCurrent", compactions: 2, expected: 0 },
  { op: "saveIfCurrent", compactions: 2, expected: 1 },
  { op: "load" },
  { op: "save", compactions: 5 },
  { op: "save", compactions: 6, updatedAt: null },
  { op: "saveIfCurrent", compactions: 6, expected: 5 },
  { op: "load" }
]

/** Cache keys by name, and the operations on the memory cache. */
export const cacheKeys = {
  a: { namespace: "ns", schemaVersion: 4, model: "m", summarizer: { kind: "custom" }, request: "R1" },
  b: { namespace: "ns", schemaVersion: 4, model: "m2", summarizer: { kind: "custom" }, request: "R1" }
} as const

/** Lookups and stores on the memory cache, in order. */
export const cacheOperations: ReadonlyArray<
  { readonly op: "lookup"; readonly key: keyof typeof cacheKeys } | {
    readonly op: "store"
    readonly key: keyof typeof cacheKeys
    readonly summary: string
  }
> = [
  { op: "lookup", key: "a" },
  { op: "store", key: "a", summary: "S-a" },
  { op: "lookup", key: "a" },
  { op: "lookup", key: "b" },
  { op: "store", key: "a", summary: "S-a2" },
  { op: "lookup", key: "a" },
  { op: "store", key: "b", summary: "S-b" }
]

/** Archive writes (encoded messages) and the bound of the archive, then the handles looked up. */
export const archiveMaxChars = 60

/** The entries written to the memory archive, in order. */
export const archiveWrites = [
  {
    sessionId: "s1",
    compaction: 1,
    messages: [
      { _tag: "User", id: "u1", content: "Fix the parser in src/parse.ts." },
      { _tag: "ToolResult", id: "r1", toolCallId: "c1", name: "bash", content: "FAIL parse.test.ts" }
    ]
  },
  {
    sessionId: "s2",
    compaction: 1,
    messages: [{ _tag: "User", id: "u2", content: "Another session, long enough to push s1 out of the bound." }]
  }
] as const

/** Texts counted by the tokenizers. */
export const tokenizerTexts: ReadonlyArray<string> = [
  "",
  "Run the parser tests.",
  "<|endoftext|> quoted in a transcript",
  "{\"path\":\"src/parse.ts\",\"lines\":[1,2,3]}",
  "[".repeat(2_000)
]

/** The choices of the scripted attention, and how many times it is asked. */
export const attentionChoices: ReadonlyArray<"retry" | "trim"> = ["retry", "retry", "trim"]
/** How many times the scripted attention is asked. */
export const attentionAsks = 4
