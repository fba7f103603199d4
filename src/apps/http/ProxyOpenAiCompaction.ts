/**
 * OpenAI's compaction on the proxy's Responses routes, for any upstream
 * (`--native-compaction`, the mode Anthropic's `context_management` uses
 * too): `context_management: [{ type: "compaction", compact_threshold }]` on
 * `POST …/responses`, the standalone `POST …/responses/compact`, and a final
 * `compaction_trigger` input item. Passed through, such a request goes on byte
 * for byte and is never compacted by the proxy as well. Emulated, the engine
 * compacts and the answer carries a `compaction` item whose
 * `encrypted_content` is the proxy's signed token (`ProxyCompactionToken`); a
 * later request carrying that item is read as the API reads it: everything
 * before it dropped but the system and developer messages (the instructions
 * Codex puts there), the item replaced by the compacted block's text (from
 * the session's saved compaction) and the messages the view kept after it.
 * The upstream never sees `context_management`, `compaction_trigger` or a
 * compaction item. `ProxyOpenAiAnswers` writes the answers; `Proxy.ts` is the
 * one user of both.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import type { HttpServerResponse } from "#compat-http"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as CompactDocument from "../../face/adapters/CompactDocument.js"
import * as OpenAiResponses from "../../face/adapters/OpenAiResponses.js"
import * as Compactor from "../../face/engine/Compactor.js"
import * as Json from "../../face/models/Json.js"
import type * as CompactionStore from "../../face/services/CompactionStore.js"
import * as Caller from "./Caller.js"
import * as ProxyCompaction from "./ProxyCompaction.js"
import * as ProxyCompactionToken from "./ProxyCompactionToken.js"
import * as ProxyEmulation from "./ProxyEmulation.js"
import type * as ProxyNativeCompaction from "./ProxyNativeCompaction.js"
import * as ProxyOpenAiAnswers from "./ProxyOpenAiAnswers.js"
import { record } from "./ProxyRoutes.js"

/**
 * The host names of the provider whose Responses API compacts itself.
 *
 * @since 0.1.0
 * @category constants
 */
export const providerHosts: ReadonlyArray<string> = ["api.openai.com"]

/**
 * The mode a proxy in front of `upstream` runs OpenAI's compaction in:
 * `auto` is `pass` for OpenAI's own API and `emulate` for every other upstream.
 *
 * @since 0.1.0
 * @category models
 */
export const resolveMode = (mode: ProxyNativeCompaction.Mode, upstream: string): "emulate" | "pass" => {
  if (mode !== "auto") return mode
  try {
    return providerHosts.includes(new URL(upstream).hostname.toLowerCase()) ? "pass" : "emulate"
  } catch {
    return "emulate"
  }
}

/**
 * Whether a request path is the standalone compaction endpoint.
 *
 * @since 0.1.0
 * @category routes
 */
export const isCompactPath = (path: string): boolean => path.endsWith("/responses/compact")

/**
 * The `compact_threshold` of a body's `context_management` compaction entry:
 * `undefined` when it has none, `null` when the entry gives no threshold.
 *
 * @since 0.1.0
 * @category parsing
 */
export const compactThreshold = (body: { readonly [key: string]: unknown }): number | null | undefined => {
  const entries = body["context_management"]
  if (!Array.isArray(entries)) return undefined
  const entry = entries.map(record).find((candidate) => candidate?.["type"] === "compaction")
  if (entry === undefined) return undefined
  const threshold = entry["compact_threshold"]
  return typeof threshold === "number" && Number.isFinite(threshold) && threshold >= 0 ? threshold : null
}

const isItem = (type: string) => (item: unknown): boolean => record(item)?.["type"] === type

/**
 * Whether a request asks the provider to compact: the compaction endpoint, a
 * `context_management` compaction entry, or a final `compaction_trigger` item.
 *
 * @since 0.1.0
 * @category parsing
 */
export const asksProvider = (body: { readonly [key: string]: unknown }, compactPath: boolean): boolean => {
  const input = body["input"]
  return compactPath || compactThreshold(body) !== undefined ||
    (Array.isArray(input) && input.length > 0 && isItem("compaction_trigger")(input[input.length - 1]))
}

/**
 * A compaction item as the API gives one.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactionItem {
  readonly type: "compaction"
  readonly id: string
  readonly encrypted_content: string
}

/**
 * What the answer to an emulated request carries, and whether the upstream is called.
 *
 * @since 0.1.0
 * @category models
 */
export interface Emulation {
  /** `response`: the upstream's answer (with the item first, when there is one); `trigger` and `compact`: the proxy answers alone. */
  readonly kind: "response" | "trigger" | "compact"
  /** The body the upstream gets (`response` only). */
  readonly body: string
  readonly item: CompactionItem | undefined
  /** The user messages of the request, which the compaction endpoint's answer lists before its item. */
  readonly userMessages: ReadonlyArray<unknown>
  /** The engine's count of the input the compaction closed, and of what it left. */
  readonly usage: { readonly input: number; readonly output: number }
  readonly model: string
  readonly stream: boolean
}

/**
 * What the proxy does with a Responses request: the usual compaction, forward
 * it as it came, refuse it (a compaction item that does not verify: 400, or a
 * compaction that failed: 500), or emulate.
 *
 * @since 0.1.0
 * @category models
 */
export type Decision =
  | { readonly _tag: "Usual" }
  | { readonly _tag: "Pass"; readonly reason: string }
  | { readonly _tag: "Refuse"; readonly status: number; readonly code: string; readonly message: string }
  | { readonly _tag: "Emulate"; readonly emulation: Emulation; readonly outcome: ProxyCompaction.Outcome }

/** The refusal of a request whose token could not be signed or verified: the store did not give the key. */
const keyUnavailable = (error: { readonly message: string }): Decision => ({
  _tag: "Refuse",
  status: 503,
  code: "store_unavailable",
  message: `the proxy could not read its key: ${error.message}`
})

const { keptText } = ProxyEmulation

/**
 * The text a compaction item stands for: the session's saved block (when the
 * reference has one) and the messages kept after it.
 *
 * @since 0.1.0
 * @category expanding
 */
export const expansionText = (block: string | undefined, kept: string): string =>
  [block, kept].filter((part): part is string => part !== undefined && part !== "").join("\n\n")

const userMessage = (text: string) => ({ type: "message", role: "user", content: [{ type: "input_text", text }] })

const itemId = (): string => `cmp_${Math.random().toString(36).slice(2, 14)}${Date.now().toString(36)}`

/**
 * How the proxy decides a Responses request's compaction (see the module's
 * comment). `loadState` reads a session's saved compaction from the store.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  compactor: Compactor.Service,
  mode: "emulate" | "pass",
  tokens: ProxyCompactionToken.Tokens,
  loadState: (
    sessionId: string
  ) => Effect.Effect<Option.Option<CompactionStore.CompactionState>, CompactionStore.StoreError>
) =>
(request: ProxyCompaction.Request, compactPath: boolean): Effect.Effect<Decision> =>
  Effect.gen(function*() {
    const parsed = request.parsed()
    const body = Http.isSuccess(parsed) ? record(Http.successOf(parsed)) : undefined
    if (body === undefined) return { _tag: "Usual" } as const
    if (mode === "pass") {
      return asksProvider(body, compactPath)
        ? { _tag: "Pass", reason: "the provider compacts (OpenAI compaction)" } as const
        : { _tag: "Usual" } as const
    }
    const raw = body["input"]
    const input: ReadonlyArray<unknown> = typeof raw === "string"
      ? [userMessage(raw)]
      : Array.isArray(raw)
      ? raw
      : []
    const carried = input.reduce<number>((last, item, index) => isItem("compaction")(item) ? index : last, -1)
    const trigger = input.length > 0 && isItem("compaction_trigger")(input[input.length - 1])
    const threshold = compactThreshold(body)
    if (!compactPath && !trigger && threshold === undefined && carried < 0) return { _tag: "Usual" } as const
    const notes: Array<string> = []
    let sessionId = request.sessionId
    let current = input
    if (carried >= 0) {
      const verified = yield* Compat.result(
        tokens.verify(record(input[carried])?.["encrypted_content"], request.caller)
      )
      if (Http.isFailure(verified)) return keyUnavailable(Http.failureOf(verified))
      const reference = Http.successOf(verified)
      if ("_tag" in reference) {
        return { _tag: "Refuse", status: 400, code: "invalid_encrypted_content", message: reference.message } as const
      }
      let block: string | undefined
      if (reference.compactions > 0) {
        const state = yield* Compat.result(loadState(reference.sessionId))
        if (Http.isFailure(state)) {
          return {
            _tag: "Refuse",
            status: 503,
            code: "store_unavailable",
            message: `the proxy could not read the session's compaction: ${Http.failureOf(state).message}`
          } as const
        }
        const saved = Option.getOrUndefined(Http.successOf(state))
        if (saved === undefined || saved.compactions !== reference.compactions) {
          return {
            _tag: "Refuse",
            status: 400,
            code: "invalid_encrypted_content",
            message: saved === undefined
              ? "the compaction item refers to a compaction this proxy's store does not hold"
              : `the compaction item refers to compaction ${reference.compactions} of its session, which compaction ${saved.compactions} replaced: send the newest compaction item`
          } as const
        }
        block = saved.block.content
      }
      sessionId = reference.sessionId
      // The instructions before the item stay (Codex puts its developer messages there); the history goes.
      const instructions = input.slice(0, carried).filter((item) => {
        const role = record(item)?.["role"]
        return role === "system" || role === "developer"
      })
      current = [...instructions, userMessage(expansionText(block, reference.kept)), ...input.slice(carried + 1)]
      notes.push(
        `expanded-compaction=${reference.compactions}`,
        `dropped-before-compaction=${carried - instructions.length}`
      )
    }
    current = current.filter((item) => !isItem("compaction_trigger")(item) && !isItem("compaction")(item))
    const { context_management: _management, ...rest } = body
    const edited: { [key: string]: unknown } = { ...rest, input: current }
    const model = typeof body["model"] === "string" ? body["model"] : "unknown-model"
    const stream = body["stream"] === true
    const userMessages = input.filter((item) => {
      const entry = record(item)
      return entry?.["role"] === "user" && (entry["type"] === undefined || entry["type"] === "message")
    })
    const tokensOf = (items: ReadonlyArray<unknown>): number => {
      const decoded = OpenAiResponses.decodeResult({ ...edited, input: items })
      return Http.isSuccess(decoded)
        ? Http.successOf(decoded).transcript.reduce((sum, message) => sum + compactor.tokensOf(message), 0)
        : Math.ceil(Json.stringify(items).length / 4)
    }
    const kind: Emulation["kind"] = compactPath ? "compact" : trigger ? "trigger" : "response"
    const decide = (
      sent: unknown,
      item: CompactionItem | undefined,
      usage: Emulation["usage"]
    ): Decision => {
      const sentInput = record(sent)?.["input"]
      const description = [
        item === undefined ? "not-compacted" : "compacted",
        kind === "response" ? `items=${input.length}->${Array.isArray(sentInput) ? sentInput.length : 0}` : kind,
        ...notes
      ].join("; ")
      return {
        _tag: "Emulate",
        emulation: { kind, body: Json.stringify(sent), item, userMessages, usage, model, stream },
        outcome: { _tag: "Emulated", description }
      }
    }
    const tokensNow = tokensOf(current)
    if (kind === "response") {
      if (threshold === undefined) return decide(edited, undefined, { input: 0, output: 0 })
      if (threshold !== null && tokensNow <= threshold) {
        notes.push(`tokens=${tokensNow}<=compact_threshold=${threshold}`)
        return decide(edited, undefined, { input: 0, output: 0 })
      }
    }
    const contextWindow = request.windowOf(model) ?? 128_000
    const compacted = yield* Compat.result(Effect.gen(function*() {
      const read = yield* Caller.read(
        request.caller,
        { document: edited, format: OpenAiResponses.adapter.format, adapters: [OpenAiResponses.adapter] },
        sessionId
      )
      // Without a threshold, the engine's own trigger decides, as the API's default does.
      const cause: CompactDocument.Cause = kind === "response" && threshold === null
        ? CompactDocument.trigger
        : { _tag: "Manual" }
      return yield* CompactDocument.compactDocument({
        document: read,
        session: { sessionId: read.sessionId, model, contextWindow },
        cause
      }).pipe(Effect.provideService(Compactor.Compactor, compactor), Effect.interruptible)
    }))
    if (Http.isFailure(compacted)) {
      const reason = Http.failureOf(compacted).message
      yield* Effect.logWarning(`context-compressor proxy: OpenAI compaction not applied: ${reason}`)
      if (kind !== "response") {
        return { _tag: "Refuse", status: 500, code: "compaction_failed", message: `the compaction failed: ${reason}` }
      }
      notes.push(`compaction failed: ${reason}`)
      return decide(edited, undefined, { input: 0, output: 0 })
    }
    const { checkpoint, output, read } = Http.successOf(compacted)
    const event = Option.getOrUndefined(checkpoint.compacted)
    if (kind === "response" && event === undefined) {
      notes.push(`tokens=${tokensNow}: under the engine's trigger`)
      return decide(output, undefined, { input: 0, output: 0 })
    }
    // Without a compaction now, the view holds the session's saved block, if any: the item refers to that one.
    const holdsBlock = checkpoint.view.some((message) => message._tag === "Compacted")
    const compactions = event !== undefined
      ? event.compactions
      : holdsBlock
      ? Option.match(yield* Effect.orElseSucceed(loadState(read.sessionId), Option.none), {
        onNone: () => 0,
        onSome: (saved) => saved.compactions
      })
      : 0
    const signed = yield* Compat.result(tokens.sign({
      sessionId: read.sessionId,
      compactions,
      kept: keptText(checkpoint.view)
    }))
    if (Http.isFailure(signed)) return keyUnavailable(Http.failureOf(signed))
    notes.push(`tokens=${tokensNow}->${checkpoint.tokens}`)
    return decide(output, { type: "compaction", id: itemId(), encrypted_content: Http.successOf(signed) }, {
      input: tokensNow,
      output: checkpoint.tokens
    })
  })

/**
 * What the proxy's preparation of a chat request gives: the body to send and
 * what was done, the session, and the emulation to answer with (Anthropic's
 * or OpenAI's) or the answer refusing the request.
 *
 * @since 0.1.0
 * @category models
 */
export interface Prepared {
  readonly prepared: ProxyCompaction.Prepared
  readonly sessionId?: string
  readonly emulation?: ProxyNativeCompaction.Emulation
  readonly openAi?: Emulation
  readonly refused?: HttpServerResponse.HttpServerResponse
}

/**
 * The proxy's preparation of a chat request with OpenAI's compaction decided
 * first on the Responses routes: emulated, refused, passed through as it came,
 * or given the usual preparation (`prepare`); other routes go to `native`
 * (Anthropic's context management, then the usual one). The mode is
 * `options.nativeCompaction` (default `auto`); tokens are signed with the
 * key kept in `store`'s session memory, and compactions read from it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const prepareWith = (
  compactor: Compactor.Service,
  options: { readonly nativeCompaction?: ProxyNativeCompaction.Mode | undefined; readonly upstream: string },
  store: CompactionStore.Service | undefined,
  native: (request: ProxyCompaction.Request) => Effect.Effect<Prepared>,
  prepare: (request: ProxyCompaction.Request) => Effect.Effect<Prepared>
) => {
  const decide = make(
    compactor,
    resolveMode(options.nativeCompaction ?? "auto", options.upstream),
    ProxyCompactionToken.make(store?.memory),
    store === undefined ? () => Effect.succeed(Option.none()) : store.load
  )
  return (request: ProxyCompaction.Request): Effect.Effect<Prepared> =>
    request.route.adapter !== OpenAiResponses.adapter
      ? native(request)
      : Effect.flatMap(decide(request, request.route.compactsOnly === true), (decision): Effect.Effect<Prepared> => {
        switch (decision._tag) {
          case "Usual":
            return prepare(request)
          case "Pass":
            return Effect.succeed({
              prepared: ProxyCompaction.asItCame(request, { _tag: "PassedThrough", reason: decision.reason })
            })
          case "Refuse":
            return Effect.succeed({
              prepared: ProxyCompaction.asItCame(request, {
                _tag: "Emulated",
                description: `refused; ${decision.code}`
              }),
              refused: ProxyOpenAiAnswers.errorAnswer(decision.status, decision.code, decision.message)
            })
          case "Emulate":
            return Effect.succeed({
              prepared: { body: decision.emulation.body, outcome: decision.outcome },
              openAi: decision.emulation
            })
        }
      })
}
