/**
 * The degradation ladder of an outbound view (SPEC R2.13): what a view gives
 * up, in order, when compacting the older span is not enough — tool results
 * reduced through the retention policies at a smaller cap, then oversized
 * messages clipped head and tail (tool results first, then assistant text,
 * then older user messages, the newest user message last) with a marker
 * naming the message, how much was cut and where the whole text is, then the
 * compacted block itself. A pinned staged approval keeps its approval record
 * and resume byte for byte. Only the view changes: every message it makes is
 * new, and the transcript's messages are never modified.
 *
 * @since 0.1.0
 */
import * as JsonReader from "../json/JsonReader.js"
import * as Json from "../json/JsonTree.js"
import * as Clip from "../reduce/Clip.js"
import * as Envelope from "../reduce/EnvelopeData.js"
import * as Reduce from "../reduce/Reduce.js"
import type * as RuleData from "../reduce/RuleData.js"
import * as Transcript from "../transcript/TranscriptData.js"
import * as Approvals from "../working-state/Approvals.js"

/**
 * What one rung of the ladder did to the view: a `Checkpoint.LadderStep` as
 * plain data, of the rungs over a view (the reply reserve is `Ladder`'s).
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly step: "reduce-tool-results" | "clip-messages" | "clip-block"
  readonly messageIds: ReadonlyArray<string>
  readonly tokensBefore: number
  readonly tokensAfter: number
  readonly detail: string
}

/**
 * The shortest a clipped message gets, in characters, its marker aside.
 *
 * @since 0.1.0
 * @category constants
 */
export const clipFloorChars = 400

/**
 * The head of the newest message the ladder keeps, in characters: the model
 * answers it next, so it is clipped only after everything else, and below
 * this only when the window cannot hold it.
 *
 * @since 0.1.0
 * @category constants
 */
export const newestHeadChars = 2_000

/**
 * The shortest a clipped compacted block gets, in characters: its head holds
 * the block's opening and the pinned first user message's start.
 *
 * @since 0.1.0
 * @category constants
 */
export const blockFloorChars = 1_600

const summaryHeading = "## Summary of the compacted span"

/**
 * The mark a message made for a view carries (a non-enumerable property, set
 * when it is made): such a message is counted by object only, never under the
 * id of the message it stands for, and is not archived as the transcript's.
 *
 * @since 0.1.0
 * @category symbols
 */
export const DerivedTypeId: unique symbol = Symbol.for("context-compressor/ViewFit/Derived")

/**
 * Whether a message was made for a view (a clipped or reduced copy, a
 * synthetic result, a cut the state saved) rather than taken from the transcript.
 *
 * @since 0.1.0
 * @category guards
 */
export const isDerived = (message: Transcript.Message): boolean => Object.hasOwn(message, DerivedTypeId)

/**
 * Marks a message made for a view (see {@link isDerived}) and returns it. The
 * mark is part of the message, not of a table beside it: it is set once, left
 * out of the message's fields (encoding, equality and copies do not see it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const markDerived = <M extends Transcript.Message>(message: M): M => {
  if (!Object.hasOwn(message, DerivedTypeId)) Object.defineProperty(message, DerivedTypeId, { value: true })
  return message
}

/**
 * What the rungs remember across the checkpoints of one engine, so that the
 * same degradation of the same message gives the same object at every
 * checkpoint (its token count is cached with it, and a 500 KB envelope is not
 * parsed again per message of the session): the reduced and clipped copies of
 * each message, and whether a tool result holds a pending approval. Made by
 * {@link memo}; the engine owns one. Without it, each fit makes its copies anew.
 *
 * @since 0.1.0
 * @category models
 */
export interface Memo {
  readonly made: WeakMap<Transcript.Message, Map<string, Transcript.Message | undefined>>
  readonly pendingApproval: WeakMap<Transcript.ToolResult, boolean>
}

/**
 * An empty {@link Memo}.
 *
 * @since 0.1.0
 * @category constructors
 */
export const memo = (): Memo => ({ made: new WeakMap(), pendingApproval: new WeakMap() })

const kindOf = (message: Transcript.Message): string =>
  message._tag === "ToolResult"
    ? "tool result"
    : message._tag === "Assistant"
    ? "assistant message"
    : message._tag === "User"
    ? "user message"
    : "compacted block"

/**
 * The marker that stands where the ladder cut a message's text.
 *
 * @since 0.1.0
 * @category formatting
 */
export const marker = (message: Transcript.Message, where: string) => (omitted: number, total: number): string =>
  `\n…[context-compressor clipped ${
    kindOf(message)
  } ${message.id} in this view: ${omitted} of ${total} characters omitted here; the whole text is in ${where}]…\n`

const clipText = (text: string, max: number, message: Transcript.Message, where: string): string =>
  Clip.headTailCounted(text, Math.max(max, Clip.minimumMax), marker(message, where)).text

const holdsPendingApproval = (message: Transcript.ToolResult, memo: Memo | undefined): boolean => {
  let known = memo?.pendingApproval.get(message)
  if (known === undefined) {
    known = pendingApprovalOf(message.content) !== undefined
    memo?.pendingApproval.set(message, known)
  }
  return known
}

/** A staged approval's record, when the result holds a pending one. */
const pendingApprovalOf = (
  content: string
): { readonly envelope: unknown; readonly approval: Json.Json } | undefined => {
  if (!Approvals.mayStage(content)) return undefined
  const parsed = JsonReader.read(content)
  if (parsed._tag === "Err" || !Envelope.isEnvelope(parsed.value)) return undefined
  // The record is carried without what the envelope declares omitted inside it (SPEC R1.11).
  const envelope = Reduce.withoutDeclaredOmissions(parsed.value)
  if (!Approvals.stages(envelope)) return undefined
  const approval = Json.getPath(envelope, "data.approval")
  return approval === undefined ? undefined : { envelope, approval: approval as Json.Json }
}

/**
 * A tool result reduced through the policies at `cap` characters, or
 * `undefined` when no policy accepts it (plain text is left to clipping, whose
 * marker says where the whole text is). A pending approval keeps its approval
 * record byte for byte: when the reduction does not hold it whole, the result
 * becomes the envelope's header with the record and a note.
 *
 * @since 0.1.0
 * @category reducing
 */
export const reduceToolResult = (
  message: Transcript.ToolResult,
  policies: ReadonlyArray<RuleData.Policy>,
  cap: number,
  where: string,
  memo?: Memo | undefined
): Transcript.ToolResult | undefined =>
  remembered(memo, message, `reduce\u0000${cap}\u0000${where}`, () => reduceUncached(message, policies, cap, where)) as
    | Transcript.ToolResult
    | undefined

const remembered = (
  memo: Memo | undefined,
  message: Transcript.Message,
  key: string,
  make: () => Transcript.Message | undefined
): Transcript.Message | undefined => {
  if (memo === undefined) return make()
  let known = memo.made.get(message)
  if (known === undefined) {
    known = new Map()
    memo.made.set(message, known)
  }
  if (known.has(key)) return known.get(key)
  const value = make()
  if (known.size >= 16) known.clear()
  known.set(key, value)
  return value
}

const reduceUncached = (
  message: Transcript.ToolResult,
  policies: ReadonlyArray<RuleData.Policy>,
  cap: number,
  where: string
): Transcript.ToolResult | undefined => {
  const reduction = Reduce.reduce(message.content, { policies, cap })
  if (reduction.report.route === "generic") return undefined
  let content = reduction.text
  const pending = pendingApprovalOf(message.content)
  if (pending !== undefined && !content.includes(Json.stringify(pending.approval))) {
    const header = (key: string) => Json.getPath(pending.envelope, key) as Json.Json | undefined
    content = Json.stringify({
      protocol: header("protocol") ?? null,
      tool: header("tool") ?? null,
      action: header("action") ?? null,
      ok: header("ok") ?? null,
      summary: typeof header("summary") === "string" ? Clip.label(header("summary") as string, 400) : null,
      data: { status: "pending_approval", mode: header("data.mode") ?? null, approval: pending.approval },
      note:
        `reduced by context-compressor in this view to the staged approval; the whole result ${message.id} is in ${where}`
    })
  }
  if (content.length >= message.content.length) return undefined
  if (pending === undefined && Json.isObject(reduction.value)) content = withWhereNote(content, message.id, where)
  return markDerived(Transcript.withFields(message, { content }))
}

/**
 * A reduced result's text (the writer's text of a JSON object) with a note of
 * where its whole text is (its recall handle, when the archive gives one): a
 * key of its own at the end of the object, so the model can ask for what the
 * reduction left out. Written into the text, not parsed again.
 */
const withWhereNote = (content: string, id: string, where: string): string => {
  const end = content.lastIndexOf("}")
  const note = `${JSON.stringify("context_compressor")}:${
    JSON.stringify(`reduced in this view; the whole result ${id} is in ${where}`)
  }`
  const empty = content.slice(content.indexOf("{") + 1, end).trim() === ""
  return `${content.slice(0, end)}${empty ? "" : ","}${note}${content.slice(end)}`
}

/**
 * A message clipped to about `maxChars` characters: its content, and for an
 * assistant its tool calls' arguments (each replaced by a JSON object holding
 * the clipped text, so the arguments stay JSON). `undefined` when it is not longer.
 *
 * @since 0.1.0
 * @category clipping
 */
export const clipMessage = (
  message: Transcript.Message,
  maxChars: number,
  where: string,
  memo?: Memo | undefined
): Transcript.Message | undefined =>
  remembered(memo, message, `clip\u0000${maxChars}\u0000${where}`, () => clipUncached(message, maxChars, where))

const clipUncached = (message: Transcript.Message, maxChars: number, where: string): Transcript.Message | undefined => {
  const length = Transcript.text(message).length
  if (length <= maxChars) return undefined
  switch (message._tag) {
    case "System":
      return undefined
    case "User":
      return markDerived(
        Transcript.withFields(message, { content: clipText(message.content, maxChars, message, where) })
      )
    case "ToolResult":
      return markDerived(
        Transcript.withFields(message, { content: clipText(message.content, maxChars, message, where) })
      )
    case "Compacted": {
      // The opening and the pinned first user message stay whole: only what follows them is clipped.
      const split = message.content.indexOf(summaryHeading)
      const head = split === -1 ? "" : message.content.slice(0, split)
      const rest = split === -1 ? message.content : message.content.slice(split)
      const content = head + clipText(rest, Math.max(maxChars - head.length, clipFloorChars), message, where)
      return content.length >= message.content.length
        ? undefined
        : markDerived(Transcript.withFields(message, { content }))
    }
    case "Assistant": {
      const share = Math.max(Math.floor(maxChars / (message.toolCalls.length + 1)), Clip.minimumMax)
      const toolCalls = message.toolCalls.map((call) =>
        call.arguments.length <= share
          ? call
          : Transcript.callWithFields(call, {
            arguments: JSON.stringify({ context_compressor_clipped: clipText(call.arguments, share, message, where) })
          })
      )
      return markDerived(
        Transcript.withFields(message, { content: clipText(message.content, share, message, where), toolCalls })
      )
    }
  }
}

/**
 * What the ladder needs besides the view.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The tokens the view may take: the trigger less the reply reserve. */
  readonly budget: number
  readonly tokens: (message: Transcript.Message) => number
  readonly policies: ReadonlyArray<RuleData.Policy>
  /** The cap of the first reduction, in characters; the second uses `Reduce.minimumCap`. */
  readonly capChars: number
  /** Where a message of the view is kept whole: "the session's transcript". */
  readonly whereWhole: (message: Transcript.Message) => string
  /** Where what the compacted block stands for is kept whole. */
  readonly whereBlock: string
  /** Only messages over this many tokens are touched (default: any). */
  readonly oversized?: number
  /** The first this many messages were sent as they are and are not touched (default: none), so a prompt cache holds. */
  readonly frozen?: number
  /** What the rungs remember across checkpoints (the engine's {@link Memo}); none: copies are made anew. */
  readonly memo?: Memo | undefined
}

/**
 * The ladder's outcome: the view, its tokens, and the steps taken.
 *
 * @since 0.1.0
 * @category models
 */
export interface Fitted {
  readonly view: Transcript.Transcript
  readonly tokens: number
  readonly steps: ReadonlyArray<Step>
}

/** The order clipping goes in: tool results, assistant text, older user messages, the newest user message. */
const clipRank = (view: Transcript.Transcript, index: number, newestUser: number): number => {
  const message = view[index]!
  switch (message._tag) {
    case "ToolResult":
      return 0
    case "Assistant":
      return 1
    case "User":
      return index === newestUser ? 3 : 2
    default:
      return 4
  }
}

/**
 * Takes the rungs of the ladder, each only while the view is over the budget.
 * With `oversized`, every message over that many tokens is touched, over the
 * budget or not, and only down to it (the steady part a checkpoint applies to
 * the messages it has not sent yet, so that a message too big for any view
 * is cut when it comes, never later, and does not compact every turn).
 *
 * @since 0.1.0
 * @category fitting
 */
export const fit = (view: Transcript.Transcript, options: Options): Fitted => {
  const { budget, tokens } = options
  const messages = [...view]
  let total = messages.reduce((sum, message) => sum + tokens(message), 0)
  const steps: Array<Step> = []
  const oversized = options.oversized ?? 0
  // The newest message waits for the last rung (the steady pass touches it as any oversized message, never below its head).
  const last = messages.length - 1
  const newest =
    oversized === 0 && last >= 0 && messages[last]!._tag !== "System" && messages[last]!._tag !== "Compacted"
      ? last
      : -1
  const frozen = options.frozen ?? 0
  const touchable = (index: number): boolean => {
    const message = messages[index]!
    return index >= frozen && index !== newest && message._tag !== "System" && message._tag !== "Compacted" &&
      tokens(message) > oversized
  }
  const replace = (index: number, next: Transcript.Message): void => {
    total += tokens(next) - tokens(messages[index]!)
    messages[index] = next
  }
  const bySize = (indices: ReadonlyArray<number>) =>
    [...indices].sort((a, b) => tokens(messages[b]!) - tokens(messages[a]!))
  const charsFor = (message: Transcript.Message, targetTokens: number): number => {
    const length = Transcript.text(message).length
    return Math.floor((length * Math.max(targetTokens, 1)) / Math.max(tokens(message), 1))
  }

  // Rung 1: tool results through the retention policies, at the cap, then at the smallest cap.
  const before = total
  const reduced = new Set<number>()
  for (const cap of oversized > 0 ? [options.capChars] : [options.capChars, Reduce.minimumCap]) {
    for (const index of bySize(messages.flatMap((m, i) => (m._tag === "ToolResult" && touchable(i) ? [i] : [])))) {
      if (total <= budget && oversized === 0) break
      const message = messages[index] as Transcript.ToolResult
      const next = reduceToolResult(message, options.policies, cap, options.whereWhole(message), options.memo)
      if (next !== undefined && tokens(next) < tokens(message)) {
        replace(index, next)
        reduced.add(index)
      }
    }
  }
  if (reduced.size > 0) {
    steps.push({
      step: "reduce-tool-results",
      messageIds: [...reduced].sort((a, b) => a - b).map((i) => messages[i]!.id),
      tokensBefore: before,
      tokensAfter: total,
      detail: `${reduced.size} tool result${
        reduced.size === 1 ? "" : "s"
      } reduced through the retention policies (staged approvals keep their approval record and resume)`
    })
  }

  // Rung 2: clip oversized messages, in order of what the model can best do without.
  if (total > budget || oversized > 0) {
    const beforeClip = total
    const clipped = new Set<number>()
    const newestUser = messages.findLastIndex((m) => m._tag === "User")
    const ranks = [0, 1, 2, 3]
    for (const rank of ranks) {
      const indices = bySize(
        messages.flatMap((_, i) => (touchable(i) && clipRank(messages, i, newestUser) === rank ? [i] : []))
      )
      for (const index of indices) {
        if (total <= budget && oversized === 0) break
        const message = messages[index]!
        // A pending approval is never cut: its record and resume stay byte for byte (rung 1 reduced the rest).
        if (message._tag === "ToolResult" && holdsPendingApproval(message, options.memo)) continue
        const own = tokens(message)
        // A little under what is needed: characters are not tokens one for one, and the marker takes some.
        const target = oversized > 0 ? oversized : Math.max(own - (total - budget) - 16 - Math.ceil(own / 50), 0)
        const floor = index === last ? newestFloor(message, newestHeadChars) : clipFloorChars
        const maxChars = Math.max(charsFor(message, target), floor)
        const next = clipMessage(message, maxChars, options.whereWhole(message), options.memo)
        if (next !== undefined && tokens(next) < own) {
          replace(index, next)
          clipped.add(index)
        }
      }
      if (total <= budget && oversized === 0) break
    }
    if (clipped.size > 0) {
      steps.push({
        step: "clip-messages",
        messageIds: [...clipped].sort((a, b) => a - b).map((i) => messages[i]!.id),
        tokensBefore: beforeClip,
        tokensAfter: total,
        detail: `${clipped.size} message${
          clipped.size === 1 ? "" : "s"
        } clipped head and tail, each with a marker naming it and saying where its whole text is`
      })
    }
  }

  // Rung 3: the block itself, head and tail: its head holds the pinned first user message.
  if (total > budget && oversized === 0) {
    const index = messages.findIndex((m) => m._tag === "Compacted")
    if (index >= frozen) {
      const block = messages[index]!
      const beforeBlock = total
      const target = Math.max(tokens(block) - (total - budget) - 16 - Math.ceil(tokens(block) / 50), 0)
      const maxChars = Math.max(charsFor(block, target), blockFloorChars)
      const next = clipMessage(block, maxChars, options.whereBlock, options.memo)
      if (next !== undefined && tokens(next) < tokens(block)) {
        replace(index, next)
        steps.push({
          step: "clip-block",
          messageIds: [block.id],
          tokensBefore: beforeBlock,
          tokensAfter: total,
          detail: "the compacted block clipped head and tail (its head keeps the pinned first user message)"
        })
      }
    }
  }
  // Rung 4: the newest message, last: reduced if a policy takes it, then clipped to its head of
  // `newestHeadChars`, and below that only when the window cannot hold even that.
  if (total > budget && newest !== -1 && newest >= frozen) {
    const message = messages[newest]!
    const pending = message._tag === "ToolResult" && holdsPendingApproval(message, options.memo)
    const beforeNewest = total
    let changed = false
    if (message._tag === "ToolResult") {
      for (const cap of [options.capChars, Reduce.minimumCap]) {
        if (total <= budget) break
        const current = messages[newest] as Transcript.ToolResult
        const next = reduceToolResult(message, options.policies, cap, options.whereWhole(message), options.memo)
        if (next !== undefined && tokens(next) < tokens(current)) {
          replace(newest, next)
          changed = true
        }
      }
    }
    for (const floor of pending ? [] : [newestHeadChars, clipFloorChars]) {
      if (total <= budget) break
      const current = messages[newest]!
      const own = tokens(current)
      const target = Math.max(own - (total - budget) - 16 - Math.ceil(own / 50), 0)
      const maxChars = Math.max(charsFor(current, target), newestFloor(current, floor))
      const next = clipMessage(current, maxChars, options.whereWhole(message), options.memo)
      if (next !== undefined && tokens(next) < own) {
        replace(newest, next)
        changed = true
      }
    }
    if (changed) {
      steps.push({
        step: messages[newest]!.content.length < message.content.length && clipped(messages[newest]!)
          ? "clip-messages"
          : "reduce-tool-results",
        messageIds: [message.id],
        tokensBefore: beforeNewest,
        tokensAfter: total,
        detail: `the newest message reduced or clipped last, after the older messages and the block (its head kept)`
      })
    }
  }
  return { view: steps.length === 0 ? view : messages, tokens: total, steps }
}

/** The clip length that keeps `head` characters of each part of the newest message (an assistant's text and each call's arguments). */
const newestFloor = (message: Transcript.Message, head: number): number =>
  head * (message._tag === "Assistant" ? message.toolCalls.length + 1 : 1)

/** Whether a message of the view carries the ladder's clip marker. */
const clipped = (message: Transcript.Message): boolean =>
  Transcript.text(message).includes("[context-compressor clipped ")
