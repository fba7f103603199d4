/**
 * Lost and duplicated tool results, repaired in the view (SPEC R2.13): a
 * call whose result never came (the process died mid-tool) is answered by a
 * short synthetic result saying so, a result that came late is moved next to
 * its call, and a second result for one call id is left out, so a provider
 * accepts the view. The transcript is never modified. A result that answers
 * no call at all is a malformed transcript: its error names the message.
 *
 * Calls and results are paired by position, as the providers pair them: a
 * call's results are the tool messages that follow it. A call id used again
 * by a later call (recorded runs do this) is therefore no error; the view's
 * copy gives each later use an id of its own (`<id>#2`, …) so that every stage
 * after the repair can key on call ids, and {@link restoreIds} puts the ids as
 * sent back into the view that leaves the engine.
 *
 * @since 0.1.0
 */
import * as Transcript from "../transcript/TranscriptData.js"
import * as SameMessage from "./SameMessage.js"
import * as ViewFit from "./ViewFit.js"

/**
 * One repair made to the view: a `Checkpoint.Repair` as plain data.
 *
 * @since 0.1.0
 * @category models
 */
export interface Repair {
  readonly kind: "lost-result" | "late-result" | "duplicate-result"
  readonly toolCallId: string
  /** The message repaired: the assistant message of a lost or late result's call, the duplicate result. */
  readonly messageId: string
  readonly detail: string
}

/**
 * The text of the synthetic result of a lost call.
 *
 * @since 0.1.0
 * @category constants
 */
export const lostResultText =
  "[context-compressor: the result of this tool call was lost: the transcript holds none (the process may have stopped while the tool ran), so nothing is known of its outcome. Check the state it would have changed, or run the call again.]"

/**
 * Where a transcript is malformed past repair.
 *
 * @since 0.1.0
 * @category models
 */
export interface Malformed {
  readonly messageId: string
  readonly problem: string
}

/**
 * A scan that found nothing to repair in a transcript's first `checked`
 * messages, so that a checkpoint over a longer transcript with the same
 * messages reads only the new ones: its first `checked` messages have the
 * digest of those scanned (`SameMessage.digestOfAll`, by content, each
 * message's digest computed once per object), whether they are the same
 * objects or a caller rebuilt them with the same content.
 *
 * @since 0.1.0
 * @category models
 */
export interface Clean {
  readonly checked: number
  /** The digest of the `checked` messages scanned. */
  readonly digest: string | undefined
  readonly open: ReadonlySet<string>
  readonly calls: ReadonlySet<string>
  /** Some of the checked messages were not read again, taken as those of an earlier scan (by object or by content). */
  readonly trusted: boolean
}

// Empty, and never changed: a scan from `empty` starts sets of its own.
const noIds: ReadonlySet<string> = new Set()

/**
 * A scan of nothing.
 *
 * @since 0.1.0
 * @category constructors
 */
export const empty: Clean = { checked: 0, digest: undefined, open: noIds, calls: noIds, trusted: false }

/**
 * Scans on from a clean prefix: the clean state of the whole transcript, or
 * `undefined` when something needs a repair (or the prefix is not this
 * transcript's: then the whole transcript is scanned).
 *
 * @since 0.1.0
 * @category repairing
 */
export const scan = (
  transcript: Transcript.Transcript,
  from: Clean = empty,
  digests: SameMessage.Digests = SameMessage.digests()
): Clean | undefined => {
  const run = SameMessage.digestsOfRun(transcript, from.checked, digests)
  const known = from.checked > 0 && from.digest !== undefined && run.at === from.digest
  const start = known ? from : empty
  const open = new Set(start.open)
  const calls = start === empty ? new Set<string>() : (start.calls as Set<string>)
  for (let index = start.checked; index < transcript.length; index++) {
    const message = transcript[index]!
    if (message._tag === "ToolResult") {
      if (!open.delete(message.toolCallId)) return undefined
      continue
    }
    if (open.size > 0) return undefined
    if (message._tag === "Assistant") {
      for (const call of message.toolCalls) {
        if (calls.has(call.id) || open.has(call.id)) return undefined
        calls.add(call.id)
        open.add(call.id)
      }
    }
  }
  return {
    checked: transcript.length,
    digest: run.all,
    open,
    calls,
    trusted: start !== empty
  }
}

/**
 * The view-side copy of a transcript with its results repaired, the repairs,
 * or where it is malformed. A transcript that needs nothing is returned as it is.
 *
 * @since 0.1.0
 * @category repairing
 */
export const repair = (
  transcript: Transcript.Transcript,
  kit: Transcript.Kit
):
  | {
    readonly transcript: Transcript.Transcript
    readonly repairs: ReadonlyArray<Repair>
    readonly renamed?: Renamed | undefined
  }
  | { readonly malformed: Malformed } =>
{
  const unique = uniqueCallIds(transcript)
  const repaired = repairUnique(unique.transcript, kit)
  return "malformed" in repaired || unique.renamed === undefined ? repaired : { ...repaired, renamed: unique.renamed }
}

/**
 * The calls ids of a transcript made unique by position: each call after the
 * first with an id gets `<id>#<n>` (more `#` where that is taken), and each
 * result answers the call it follows: the newest assistant message's
 * unanswered call with its id, in the order of that message's calls. A result
 * with no unanswered call of its id is left on the newest call of the id (a
 * second result, which the repair leaves out) or as it is (no call makes it).
 * `renamed` is undefined when no id is used twice.
 *
 * @since 0.1.0
 * @category repairing
 */
export const uniqueCallIds = (
  transcript: Transcript.Transcript
): { readonly transcript: Transcript.Transcript; readonly renamed: Renamed | undefined } => {
  const sentIds = new Set<string>()
  let reused = false
  for (const message of transcript) {
    if (message._tag !== "Assistant") continue
    for (const call of message.toolCalls) {
      if (sentIds.has(call.id)) reused = true
      sentIds.add(call.id)
    }
  }
  if (!reused) return { transcript, renamed: undefined }
  const uses = new Map<string, number>()
  const newest = new Map<string, string>()
  const unanswered = new Map<string, Array<{ readonly at: number; readonly id: string }>>()
  const sent = new Map<string, string>()
  const originalOf = new Map<Transcript.Message, Transcript.Message>()
  const out = transcript.slice()
  const freshId = (id: string, use: number): string => {
    let candidate = `${id}#${use}`
    while (sentIds.has(candidate) || sent.has(candidate)) candidate = `${candidate}#`
    return candidate
  }
  transcript.forEach((message, index) => {
    if (message._tag === "Assistant") {
      let changed = false
      const toolCalls = message.toolCalls.map((call) => {
        const use = (uses.get(call.id) ?? 0) + 1
        uses.set(call.id, use)
        const id = use === 1 ? call.id : freshId(call.id, use)
        newest.set(call.id, id)
        const open = unanswered.get(call.id) ?? []
        open.push({ at: index, id })
        unanswered.set(call.id, open)
        if (id === call.id) return call
        changed = true
        sent.set(id, call.id)
        return Transcript.callWithFields(call, { id })
      })
      if (changed) {
        const copy = Transcript.withFields(message, { toolCalls })
        originalOf.set(copy, message)
        out[index] = copy
      }
      return
    }
    if (message._tag !== "ToolResult") return
    const open = unanswered.get(message.toolCallId)
    let id: string | undefined
    if (open !== undefined && open.length > 0) {
      const newestAt = open[open.length - 1]!.at
      const k = open.findIndex((entry) => entry.at === newestAt)
      id = open[k]!.id
      open.splice(k, 1)
    } else {
      id = newest.get(message.toolCallId)
    }
    if (id === undefined || id === message.toolCallId) return
    const copy = Transcript.withFields(message, { toolCallId: id })
    originalOf.set(copy, message)
    out[index] = copy
  })
  return { transcript: out, renamed: { sent, originalOf } }
}

/**
 * The call ids a repair gave to later uses of an id, and the messages it
 * copied to give them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Renamed {
  /** The id as sent, by the id the view's copy gives it. */
  readonly sent: ReadonlyMap<string, string>
  /** The transcript's message, by the copy that renamed its ids. */
  readonly originalOf: ReadonlyMap<Transcript.Message, Transcript.Message>
}

/**
 * The ids as sent, back in a view: a renamed copy becomes the transcript's
 * message again, and a message made from one (narrowed, clipped, a lost
 * result's stand-in) gets the ids as sent, so the view that leaves the engine
 * has only ids the caller sent.
 *
 * @since 0.1.0
 * @category repairing
 */
export const restoreIds = <M extends Transcript.Message>(
  view: ReadonlyArray<M>,
  renamed: Renamed | undefined
): ReadonlyArray<M> => {
  if (renamed === undefined || renamed.sent.size === 0) return view
  const sentId = (id: string): string => renamed.sent.get(id) ?? id
  return view.map((message) => {
    const original = renamed.originalOf.get(message)
    if (original !== undefined) return original as M
    if (message._tag === "Assistant" && message.toolCalls.some((call) => renamed.sent.has(call.id))) {
      const toolCalls = message.toolCalls.map((call) =>
        renamed.sent.has(call.id)
          ? Transcript.callWithFields(call, { id: sentId(call.id) })
          : call
      )
      return carryDerived(
        message,
        Transcript.withFields<Transcript.AssistantMessage>(message, { toolCalls })
      ) as unknown as M
    }
    if (message._tag === "ToolResult" && renamed.sent.has(message.toolCallId)) {
      return carryDerived(
        message,
        Transcript.withFields<Transcript.ToolResult>(message, { toolCallId: sentId(message.toolCallId) })
      ) as unknown as M
    }
    return message
  })
}

const carryDerived = <M extends Transcript.Message>(from: Transcript.Message, to: M): M =>
  ViewFit.isDerived(from) ? ViewFit.markDerived(to) : to

const repairUnique = (
  transcript: Transcript.Transcript,
  kit: Transcript.Kit
): { readonly transcript: Transcript.Transcript; readonly repairs: ReadonlyArray<Repair> } | {
  readonly malformed: Malformed
} => {
  const firstResult = new Map<string, number>()
  const callOf = new Map<string, { readonly index: number; readonly name: string }>()
  for (let index = 0; index < transcript.length; index++) {
    const message = transcript[index]!
    if (message._tag === "Assistant") {
      for (const call of message.toolCalls) {
        callOf.set(call.id, { index, name: call.name })
      }
    }
    if (message._tag === "ToolResult") {
      const call = callOf.get(message.toolCallId)
      if (call === undefined) {
        return {
          malformed: {
            messageId: message.id,
            problem:
              `tool result ${message.id} answers call ${message.toolCallId}, which no earlier assistant message makes`
          }
        }
      }
      if (!firstResult.has(message.toolCallId)) firstResult.set(message.toolCallId, index)
    }
  }
  const out: Array<Transcript.Message> = []
  const repairs: Array<Repair> = []
  const answered = new Set<string>()
  let open: Array<{ readonly id: string; readonly name: string; readonly assistant: Transcript.Message }> = []
  const close = (before: number): void => {
    for (const call of open) {
      if (answered.has(call.id)) continue
      answered.add(call.id)
      const later = firstResult.get(call.id)
      if (later !== undefined && later > before) {
        out.push(transcript[later]!)
        repairs.push({
          kind: "late-result",
          toolCallId: call.id,
          messageId: call.assistant.id,
          detail: `the result ${
            transcript[later]!.id
          } of call ${call.id} came after other messages; the view puts it next to its call`
        })
        continue
      }
      out.push(
        ViewFit.markDerived(
          kit.toolResult({
            id: `${call.assistant.id}:lost:${call.id}`,
            toolCallId: call.id,
            name: call.name,
            content: lostResultText
          })
        )
      )
      repairs.push({
        kind: "lost-result",
        toolCallId: call.id,
        messageId: call.assistant.id,
        detail:
          `call ${call.id} of message ${call.assistant.id} has no result; the view answers it with a result saying it was lost`
      })
    }
    open = []
  }
  transcript.forEach((message, index) => {
    if (message._tag === "ToolResult") {
      if (answered.has(message.toolCallId)) {
        // Moved up next to its call already, or a second result: the view keeps one per call id.
        if (firstResult.get(message.toolCallId) !== index) {
          repairs.push({
            kind: "duplicate-result",
            toolCallId: message.toolCallId,
            messageId: message.id,
            detail:
              `tool result ${message.id} is a second result for call ${message.toolCallId}; the view keeps the first`
          })
        }
        return
      }
      answered.add(message.toolCallId)
      out.push(message)
      return
    }
    close(index)
    out.push(message)
    if (message._tag === "Assistant") {
      open = message.toolCalls.map((call) => ({ id: call.id, name: call.name, assistant: message }))
    }
  })
  // The calls of the final assistant message are in flight: their results may still come.
  return repairs.length === 0 ? { transcript, repairs } : { transcript: out, repairs }
}

/**
 * The repair stage of a checkpoint: the transcript as the view is made of it.
 * A transcript found clean from the session's last clean scan (`clean`) is
 * used as it is; else it is repaired whole, and a malformed one says where.
 * The clean scan to keep for the next checkpoint comes back either way.
 *
 * @since 0.1.0
 * @category repair
 */
export const repairView = (
  transcript: Transcript.Transcript,
  clean: Clean,
  kit: Transcript.Kit,
  digests: SameMessage.Digests = SameMessage.digests()
):
  | { readonly _tag: "Malformed"; readonly malformed: Malformed; readonly clean: Clean }
  | {
    readonly _tag: "Repaired"
    readonly transcript: Transcript.Transcript
    readonly repairs: ReadonlyArray<Repair>
    readonly renamed: Renamed | undefined
    readonly clean: Clean
  } =>
{
  const scanned = scan(transcript, clean, digests)
  if (scanned !== undefined) return { _tag: "Repaired", transcript, repairs: [], renamed: undefined, clean: scanned }
  const repaired = repair(transcript, kit)
  if ("malformed" in repaired) return { _tag: "Malformed", malformed: repaired.malformed, clean: empty }
  return {
    _tag: "Repaired",
    transcript: repaired.transcript,
    repairs: repaired.repairs,
    renamed: repaired.renamed,
    clean: empty
  }
}
