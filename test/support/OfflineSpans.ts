/**
 * The spans of a history both faces' offline summarisers are compared on (`Effect3Offline.ts`,
 * `test-effect4/test/offline.test.ts`): the whole history, its thirds, its second half with the
 * user's instructions, and its second half after a compacted block whose text has the summary's
 * sections (so the earlier summary's sections are carried).
 */

/** A span: messages `start` to `end` of the history, after `earlier` when given. */
export interface OfflineSpan {
  readonly name: string
  readonly start: number
  readonly end: number
  readonly instructions?: string
  readonly earlier?: {
    readonly id: string
    readonly content: string
    readonly firstReplacedId: string
    readonly lastReplacedId: string
  }
}

/** The spans of a history of `length` messages. */
export const offlineSpans = (length: number): ReadonlyArray<OfflineSpan> => {
  const third = Math.floor(length / 3)
  const half = Math.floor(length / 2)
  return [
    { name: "whole", start: 0, end: length },
    { name: "first third", start: 0, end: third },
    { name: "second third", start: third, end: 2 * third },
    { name: "last third", start: 2 * third, end: length },
    {
      name: "second half, with instructions",
      start: half,
      end: length,
      instructions: "Focus on the failing tests and the files changed."
    },
    {
      name: "second half, after a compacted block",
      start: half,
      end: length,
      earlier: {
        id: "block-1",
        content: [
          "## Primary request",
          "Fix the failing parser tests.",
          "",
          "## Key decisions",
          "> - The issue is the tokenizer's lookahead.",
          "",
          "## Open tasks",
          "- Run the whole suite again."
        ].join("\n"),
        firstReplacedId: "m0",
        lastReplacedId: "m1"
      }
    }
  ]
}
