/**
 * Anthropic's `context_management` on the proxy's `/v1/messages` route, for
 * any upstream (`--native-compaction`). Passed through, a request that asks
 * the provider to manage its context goes on byte for byte and is never
 * compacted by the proxy as well. Emulated, the proxy does what the API
 * documents: `clear_tool_uses_20250919` replaces older tool results by a
 * placeholder in the outbound view, `compact_20260112` compacts with the
 * engine past its trigger and the answer carries a `compaction` block holding
 * the block's text, and a later request carrying that block drops everything
 * before it. The upstream never sees `context_management` or its beta
 * headers. `ProxyNativeAnswers` writes the answers; `Proxy.ts` is the one
 * user of both.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as AnthropicMessages from "../../face/adapters/AnthropicMessages.js"
import * as CompactDocument from "../../face/adapters/CompactDocument.js"
import * as Compactor from "../../face/engine/Compactor.js"
import * as Json from "../../face/models/Json.js"
import * as Caller from "./Caller.js"
import * as ProxyCompaction from "./ProxyCompaction.js"
import * as ProxyEmulation from "./ProxyEmulation.js"
import { record } from "./ProxyRoutes.js"

/**
 * What the proxy does with a request's `context_management`: `pass` forwards
 * it to the upstream, `emulate` applies it with the engine, `auto` passes it
 * when the upstream is Anthropic's own API and emulates it everywhere else.
 *
 * @since 0.1.0
 * @category models
 */
export type Mode = "auto" | "emulate" | "pass"

/**
 * The modes of `--native-compaction`, in the order the flag lists them.
 *
 * @since 0.1.0
 * @category constants
 */
export const modes: ReadonlyArray<Mode> = ["auto", "emulate", "pass"]

/**
 * The host names of the provider whose API does its own context management.
 *
 * @since 0.1.0
 * @category constants
 */
export const providerHosts: ReadonlyArray<string> = ["api.anthropic.com"]

/**
 * The mode a proxy in front of `upstream` runs in: `auto` is `pass` for
 * Anthropic's own API and `emulate` for every other upstream.
 *
 * @since 0.1.0
 * @category models
 */
export const resolveMode = (mode: Mode, upstream: string): "emulate" | "pass" => {
  if (mode !== "auto") return mode
  try {
    return providerHosts.includes(new URL(upstream).hostname.toLowerCase()) ? "pass" : "emulate"
  } catch {
    return "emulate"
  }
}

/**
 * The `anthropic-beta` values of context management, taken off the header
 * when the proxy emulates it.
 *
 * @since 0.1.0
 * @category constants
 */
export const betaValues: ReadonlyArray<string> = ["compact-2026-01-12", "context-management-2025-06-27"]

/**
 * The text a cleared tool result holds instead of its content.
 *
 * @since 0.1.0
 * @category constants
 */
export const clearedToolResult = "[tool result cleared by context management]"

/**
 * A `clear_tool_uses_20250919` edit with the API's defaults filled in: past
 * 100,000 input tokens, keep the 3 newest tool uses.
 *
 * @since 0.1.0
 * @category models
 */
export interface ClearToolUses {
  readonly _tag: "ClearToolUses"
  readonly trigger: { readonly type: "input_tokens" | "tool_uses"; readonly value: number }
  readonly keep: number
  readonly clearAtLeast: number
  readonly excludeTools: ReadonlyArray<string>
  readonly clearToolInputs: boolean | ReadonlyArray<string>
}

/**
 * A `compact_20260112` edit with the API's default trigger (150,000 input tokens) filled in.
 *
 * @since 0.1.0
 * @category models
 */
export interface Compact {
  readonly _tag: "Compact"
  readonly trigger: number
  readonly pauseAfterCompaction: boolean
  readonly instructions: string | undefined
}

/**
 * The edits a request's `context_management` asks for, and the types of those the proxy does not emulate.
 *
 * @since 0.1.0
 * @category models
 */
export interface Requested {
  readonly clearToolUses: ReadonlyArray<ClearToolUses>
  readonly compact: Compact | undefined
  readonly ignored: ReadonlyArray<string>
}

const positive = (value: unknown, fallback: number): number =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : fallback

const valueOf = (value: unknown): unknown => record(value)?.["value"]

/**
 * The edits of a request body's `context_management`, or none when it has none.
 *
 * @since 0.1.0
 * @category parsing
 */
export const requested = (body: { readonly [key: string]: unknown }): Requested | undefined => {
  const management = record(body["context_management"])
  if (management === undefined) return undefined
  const edits = Array.isArray(management["edits"]) ? management["edits"] : []
  const clearToolUses: Array<ClearToolUses> = []
  const ignored: Array<string> = []
  let compact: Compact | undefined
  for (const raw of edits) {
    const edit = record(raw)
    const type = edit?.["type"]
    if (edit === undefined) continue
    if (type === "clear_tool_uses_20250919") {
      const trigger = record(edit["trigger"])
      const inputs = edit["clear_tool_inputs"]
      clearToolUses.push({
        _tag: "ClearToolUses",
        trigger: trigger?.["type"] === "tool_uses"
          ? { type: "tool_uses", value: positive(trigger["value"], 0) }
          : { type: "input_tokens", value: positive(trigger?.["value"], 100_000) },
        keep: positive(valueOf(edit["keep"]), 3),
        clearAtLeast: positive(valueOf(edit["clear_at_least"]), 0),
        excludeTools: Array.isArray(edit["exclude_tools"])
          ? edit["exclude_tools"].filter((name): name is string => typeof name === "string")
          : [],
        clearToolInputs: Array.isArray(inputs)
          ? inputs.filter((name): name is string => typeof name === "string")
          : inputs === true
      })
    } else if (type === "compact_20260112") {
      const instructions = typeof edit["instructions"] === "string" && edit["instructions"].trim() !== ""
        ? edit["instructions"]
        : undefined
      compact = {
        _tag: "Compact",
        trigger: positive(valueOf(edit["trigger"]), 150_000),
        pauseAfterCompaction: edit["pause_after_compaction"] === true,
        instructions
      }
    } else {
      ignored.push(String(type))
    }
  }
  return { clearToolUses, compact, ignored }
}

/**
 * Whether a request asks the provider to manage its context: a `context_management` with edits.
 *
 * @since 0.1.0
 * @category parsing
 */
export const asksProvider = (body: { readonly [key: string]: unknown }): boolean => {
  const edits = record(body["context_management"])?.["edits"]
  return Array.isArray(edits) && edits.length > 0
}

const isCompactionBlock = (block: unknown): boolean => record(block)?.["type"] === "compaction"

const summaryOf = (block: unknown): string | undefined => {
  const content = record(block)?.["content"]
  return typeof content === "string" && content !== "" ? content : undefined
}

/**
 * Whether a request's messages carry a `compaction` block.
 *
 * @since 0.1.0
 * @category parsing
 */
export const carriesCompaction = (messages: ReadonlyArray<unknown>): boolean =>
  messages.some((message) => {
    const content = record(message)?.["content"]
    return Array.isArray(content) && content.some(isCompactionBlock)
  })

/**
 * The messages as the API reads them after a `compaction` block: everything
 * before the last one with a summary is dropped, the summary becomes a user
 * text block (with the block's `cache_control`), and what followed it in its
 * assistant message and after stays. Compaction blocks without a summary are
 * no-ops and leave. Also how many messages were dropped.
 *
 * @since 0.1.0
 * @category editing
 */
export const afterCompaction = (
  messages: ReadonlyArray<unknown>
): { readonly messages: ReadonlyArray<unknown>; readonly dropped: number } => {
  let at: { readonly message: number; readonly block: number } | undefined
  messages.forEach((message, index) => {
    const entry = record(message)
    const content = entry?.["content"]
    if (entry?.["role"] !== "assistant" || !Array.isArray(content)) return
    content.forEach((block, k) => {
      if (isCompactionBlock(block) && summaryOf(block) !== undefined) at = { message: index, block: k }
    })
  })
  const withoutNoOps = (list: ReadonlyArray<unknown>) =>
    list.flatMap((message) => {
      const entry = record(message)
      const content = entry?.["content"]
      if (entry === undefined || !Array.isArray(content) || !content.some(isCompactionBlock)) return [message]
      const kept = content.filter((block) => !isCompactionBlock(block))
      return kept.length === 0 ? [] : [{ ...entry, content: kept }]
    })
  if (at === undefined) return { messages: withoutNoOps(messages), dropped: 0 }
  const holder = record(messages[at.message])!
  const blocks = holder["content"] as ReadonlyArray<unknown>
  const compaction = record(blocks[at.block])!
  const summary: { [key: string]: unknown } = { type: "text", text: summaryOf(compaction) }
  if (compaction["cache_control"] !== undefined) summary["cache_control"] = compaction["cache_control"]
  const rest = blocks.slice(at.block + 1).filter((block) => !isCompactionBlock(block))
  let following = withoutNoOps(messages.slice(at.message + 1))
  let head: ReadonlyArray<unknown> = [{ role: "user", content: [summary] }]
  const next = record(following[0])
  if (rest.length > 0) {
    head = [...head, { ...holder, content: rest }]
  } else if (next !== undefined && next["role"] === "user") {
    const content = typeof next["content"] === "string"
      ? [{ type: "text", text: next["content"] }]
      : Array.isArray(next["content"])
      ? next["content"]
      : []
    head = [{ ...next, content: [summary, ...content] }]
    following = following.slice(1)
  }
  return { messages: [...head, ...following], dropped: at.message }
}

/**
 * What one clear_tool_uses edit did, as the API reports it in `context_management.applied_edits`.
 *
 * @since 0.1.0
 * @category models
 */
export interface AppliedEdit {
  readonly type: "clear_tool_uses_20250919"
  readonly cleared_tool_uses: number
  readonly cleared_input_tokens: number
}

/**
 * Applies a clear_tool_uses edit to a request's messages: when the trigger is
 * passed, the result of every tool use older than the `keep` newest (its tool
 * not in `excludeTools`) holds {@link clearedToolResult} instead, and with
 * `clearToolInputs` its `tool_use` input is emptied; unless fewer than
 * `clearAtLeast` tokens would go. `tokensOf` counts the messages as the engine
 * does. The messages given are never changed.
 *
 * @since 0.1.0
 * @category editing
 */
export const clearToolUses = (
  messages: ReadonlyArray<unknown>,
  edit: ClearToolUses,
  tokensOf: (messages: ReadonlyArray<unknown>) => number
): { readonly messages: ReadonlyArray<unknown>; readonly applied: AppliedEdit | undefined } => {
  const uses: Array<{ readonly id: string; readonly name: string; readonly message: number; readonly block: number }> =
    []
  messages.forEach((message, index) => {
    const entry = record(message)
    const content = entry?.["content"]
    if (entry?.["role"] !== "assistant" || !Array.isArray(content)) return
    content.forEach((block, k) => {
      const use = record(block)
      if (use?.["type"] === "tool_use" && typeof use["id"] === "string") {
        uses.push({ id: use["id"], name: String(use["name"]), message: index, block: k })
      }
    })
  })
  const before = tokensOf(messages)
  const measured = edit.trigger.type === "tool_uses" ? uses.length : before
  if (measured <= edit.trigger.value) return { messages, applied: undefined }
  const candidates = uses.slice(0, Math.max(0, uses.length - edit.keep)).filter((use) =>
    !edit.excludeTools.includes(use.name)
  )
  const clearInput = (name: string) =>
    edit.clearToolInputs === true || (Array.isArray(edit.clearToolInputs) && edit.clearToolInputs.includes(name))
  const byId = new Map(candidates.map((use) => [use.id, use]))
  const cleared = new Set<string>()
  const edited = messages.map((message, index) => {
    const entry = record(message)
    const content = entry?.["content"]
    if (entry === undefined || !Array.isArray(content)) return message
    let changed = false
    const blocks = content.map((raw) => {
      const block = record(raw)
      if (block === undefined) return raw
      if (entry["role"] === "user" && block["type"] === "tool_result" && typeof block["tool_use_id"] === "string") {
        const use = byId.get(block["tool_use_id"])
        if (use === undefined || use.message >= index || block["content"] === clearedToolResult) return raw
        changed = true
        cleared.add(use.id)
        const { is_error: _isError, ...rest } = block
        return { ...rest, content: clearedToolResult }
      }
      if (entry["role"] === "assistant" && block["type"] === "tool_use" && typeof block["id"] === "string") {
        const use = byId.get(block["id"])
        const input = record(block["input"])
        if (use === undefined || !clearInput(use.name) || input === undefined || Object.keys(input).length === 0) {
          return raw
        }
        changed = true
        cleared.add(use.id)
        return { ...block, input: {} }
      }
      return raw
    })
    return changed ? { ...entry, content: blocks } : message
  })
  if (cleared.size === 0) return { messages, applied: undefined }
  const clearedTokens = Math.max(0, before - tokensOf(edited))
  if (clearedTokens < edit.clearAtLeast) return { messages, applied: undefined }
  return {
    messages: edited,
    applied: { type: "clear_tool_uses_20250919", cleared_tool_uses: cleared.size, cleared_input_tokens: clearedTokens }
  }
}

/**
 * The token usage of a compaction, as the API reports it in `usage.iterations`.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactionUsage {
  readonly type: "compaction"
  readonly input_tokens: number
  readonly output_tokens: number
  readonly cache_creation_input_tokens: number
  readonly cache_read_input_tokens: number
  readonly cache_creation: null
}

/**
 * A request the proxy emulates context management for: the body the upstream
 * gets, what the answer is to carry, and whether the upstream is called at all.
 *
 * @since 0.1.0
 * @category models
 */
export interface Emulation {
  readonly body: string
  /** The edits of the request's `context_management` that were applied; none when it had none. */
  readonly appliedEdits: ReadonlyArray<AppliedEdit> | undefined
  /** The compaction made for this request: the block's text and its usage. */
  readonly compaction: { readonly summary: string; readonly usage: CompactionUsage } | undefined
  /** Answer with the compaction block alone, without calling the upstream (`pause_after_compaction`). */
  readonly pause: boolean
  readonly model: string
  readonly stream: boolean
}

/**
 * What the proxy does with a Messages request: the usual compaction
 * (`Usual`), forward it as it came because the provider manages its context
 * (`Pass`), or emulate its context management (`Emulate`).
 *
 * @since 0.1.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "Usual" }
  | { readonly _tag: "Pass"; readonly reason: string }
  | { readonly _tag: "Emulate"; readonly emulation: Emulation; readonly outcome: ProxyCompaction.Outcome }

const { blockText } = ProxyEmulation

/**
 * How the proxy decides a Messages request's context management: `Usual`
 * unless the request has a `context_management` or carries a compaction
 * block; in `pass` mode a request with edits goes on as it came; in
 * `emulate` mode the edits are applied (see the module's comment). A
 * compaction that fails leaves the request uncompacted and says why.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (compactor: Compactor.Service, mode: "emulate" | "pass") => {
  const tokensOf = (system: unknown) => (messages: ReadonlyArray<unknown>): number => {
    const decoded = AnthropicMessages.decodeResult(system === undefined ? { messages } : { system, messages })
    return Http.isSuccess(decoded)
      ? Http.successOf(decoded).transcript.reduce((sum, message) => sum + compactor.tokensOf(message), 0)
      : Math.ceil(Json.stringify(messages).length / 4)
  }
  return (request: ProxyCompaction.Request): Effect.Effect<Decision> =>
    Effect.gen(function*() {
      const parsed = request.parsed()
      const body = Http.isSuccess(parsed) ? record(Http.successOf(parsed)) : undefined
      if (body === undefined || !Array.isArray(body["messages"])) return { _tag: "Usual" } as const
      const messages = body["messages"] as ReadonlyArray<unknown>
      const edits = requested(body)
      if (mode === "pass") {
        return asksProvider(body)
          ? { _tag: "Pass", reason: "the provider manages its context (context_management)" } as const
          : { _tag: "Usual" } as const
      }
      if (edits === undefined && !carriesCompaction(messages)) return { _tag: "Usual" } as const
      const count = tokensOf(body["system"])
      const notes: Array<string> = []
      const after = afterCompaction(messages)
      if (after.dropped > 0) notes.push(`dropped-before-compaction=${after.dropped}`)
      let current = after.messages
      const applied: Array<AppliedEdit> = []
      for (const edit of edits?.clearToolUses ?? []) {
        const cleared = clearToolUses(current, edit, count)
        current = cleared.messages
        if (cleared.applied !== undefined) applied.push(cleared.applied)
      }
      if (applied.length > 0) {
        notes.push(`cleared-tool-uses=${applied.reduce((sum, edit) => sum + edit.cleared_tool_uses, 0)}`)
      }
      if ((edits?.ignored.length ?? 0) > 0) notes.push(`ignored=${edits!.ignored.join(",")}`)
      const { context_management: _management, ...rest } = body
      const edited = { ...rest, messages: current }
      const model = typeof body["model"] === "string" ? body["model"] : "unknown-model"
      const emulation = (sent: unknown, compaction: Emulation["compaction"]): Emulation => ({
        body: Json.stringify(sent),
        appliedEdits: edits === undefined ? undefined : applied,
        compaction,
        pause: compaction !== undefined && edits?.compact?.pauseAfterCompaction === true,
        model,
        stream: body["stream"] === true
      })
      const decide = (sent: unknown, compaction: Emulation["compaction"]): Decision => {
        const sentMessages = record(sent)?.["messages"]
        const counts = `messages=${messages.length}->${Array.isArray(sentMessages) ? sentMessages.length : 0}`
        const description = [
          compaction === undefined ? "not-compacted" : "compacted",
          counts,
          ...notes
        ].join("; ")
        return {
          _tag: "Emulate",
          emulation: emulation(sent, compaction),
          outcome: { _tag: "Emulated", description }
        }
      }
      const compact = edits?.compact
      if (compact === undefined) return decide(edited, undefined)
      const tokens = count(current)
      if (tokens <= compact.trigger) {
        notes.push(`tokens=${tokens}<=trigger=${compact.trigger}`)
        return decide(edited, undefined)
      }
      const contextWindow = request.windowOf(model)
      const compacted = yield* Compat.result(Effect.gen(function*() {
        const read = yield* Caller.read(
          request.caller,
          { document: edited, format: AnthropicMessages.adapter.format, adapters: [AnthropicMessages.adapter] },
          request.sessionId
        )
        return yield* CompactDocument.compactDocument({
          document: read,
          session: { sessionId: read.sessionId, model, contextWindow: contextWindow ?? 128_000 },
          // The edit's instructions replace the summarisation prompt, as the API documents; the gate still applies.
          cause: { _tag: "Manual", summaryPrompt: compact.instructions }
        }).pipe(Effect.provideService(Compactor.Compactor, compactor), Effect.interruptible)
      }))
      if (Http.isFailure(compacted)) {
        const reason = Http.failureOf(compacted).message
        yield* Effect.logWarning(`context-compressor proxy: compact_20260112 not applied: ${reason}`)
        notes.push(`compaction failed: ${reason}`)
        return decide(edited, undefined)
      }
      const { checkpoint, output } = Http.successOf(compacted)
      const event = Option.getOrUndefined(checkpoint.compacted)
      const summary = blockText(checkpoint.view)
      if (summary === "") {
        notes.push("compaction gave no block")
        return decide(edited, undefined)
      }
      const block = checkpoint.view.find((message) => message._tag === "Compacted")!
      const fresh = event !== undefined && !event.cacheHit
      // What the summariser's provider reported for this compaction's calls, when it did (a model behind an
      // OpenAI-compatible server); else the engine's own count of the span it was shown and of the block.
      const reported = fresh ? event.summarizerUsage : undefined
      notes.push(`tokens=${tokens}->${checkpoint.tokens}`)
      return decide(output, {
        summary,
        usage: {
          type: "compaction",
          input_tokens: reported !== undefined
            ? Math.max(reported.inputTokens - reported.cachedInputTokens, 0)
            : fresh
            ? event.tokensBefore
            : 0,
          output_tokens: fresh ? compactor.tokensOf(block) : 0,
          cache_creation_input_tokens: 0,
          cache_read_input_tokens: reported?.cachedInputTokens ?? 0,
          cache_creation: null
        }
      })
    })
}

/**
 * The `anthropic-beta` header without the values of context management (none
 * left: no header), and the other headers as they were.
 *
 * @since 0.1.0
 * @category headers
 */
export const withoutBetaValues = (headers: Record<string, string>): Record<string, string> => {
  const beta = headers["anthropic-beta"]
  if (beta === undefined) return headers
  const { "anthropic-beta": _beta, ...rest } = headers
  const kept = beta.split(",").map((value) => value.trim()).filter((value) =>
    value !== "" && !betaValues.includes(value)
  )
  return kept.length === 0 ? rest : { ...rest, "anthropic-beta": kept.join(",") }
}

/**
 * The proxy's preparation of a chat request with Anthropic's context
 * management decided first: a Messages request is emulated, passed through as
 * it came, or given the usual preparation (`prepare`); other routes always
 * the usual one. The mode is `options.nativeCompaction` (default `auto`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const prepareWith = (
  compactor: Compactor.Service,
  options: { readonly nativeCompaction?: Mode | undefined; readonly upstream: string },
  prepare: (request: ProxyCompaction.Request) => Effect.Effect<{
    readonly prepared: ProxyCompaction.Prepared
    readonly sessionId?: string
  }>
) => {
  const decide = make(compactor, resolveMode(options.nativeCompaction ?? "auto", options.upstream))
  return (request: ProxyCompaction.Request): Effect.Effect<{
    readonly prepared: ProxyCompaction.Prepared
    readonly sessionId?: string
    readonly emulation?: Emulation
  }> =>
    request.route.adapter !== AnthropicMessages.adapter
      ? prepare(request)
      : Effect.flatMap(decide(request), (decision) => {
        switch (decision._tag) {
          case "Usual":
            return prepare(request)
          case "Pass":
            return Effect.succeed({
              prepared: ProxyCompaction.asItCame(request, { _tag: "PassedThrough", reason: decision.reason } as const)
            })
          case "Emulate":
            return Effect.succeed({
              prepared: { body: decision.emulation.body, outcome: decision.outcome },
              emulation: decision.emulation
            })
        }
      })
}
