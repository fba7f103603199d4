/**
 * The engine of `Compactor`: from the services (as their `Service`s are
 * shaped), the classes of its values and the prompt builders, and the
 * engine's options, the summary policy, the session cache, the counter and
 * the line of stages (`Pipeline`) that each checkpoint runs, each an Effect.
 * `Compactor.make` reads its services, gives them here, and wraps what this
 * gives in its tag and its events.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Count from "../../../../core/checkpoint/Count.js"
import * as SameMessage from "../../../../core/checkpoint/SameMessage.js"
import type * as RuleData from "../../../../core/reduce/RuleData.js"
import * as SummaryKey from "../../../../core/services/SummaryKey.js"
import type * as Checkpoint from "../../Checkpoint.js"
import * as Pipeline from "./Pipeline.js"
import * as SessionCache from "./SessionCache.js"
import * as Summarise from "./Summarise.js"
import * as SummaryOutcome from "./SummaryOutcome.js"

/**
 * The default bound of the per-session caches: 128 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSessionCacheBytes = 128 * 1024 * 1024

/**
 * How long a checkpoint works before it yields, by default: 10 ms.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSliceMs = 10

/**
 * The default deadline of a checkpoint's automatic summariser attempts, in
 * seconds: the two attempts of the chat-completions summariser's default
 * timeout (60 s) included.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultSummaryDeadlineSeconds = 120

/**
 * Options of the engine, as `Compactor.Options` has them (the deadline as
 * `Compactor.make` decoded it).
 *
 * @since 0.1.0
 * @category models
 */
export interface Options<Policy extends RuleData.Policy> {
  readonly policies: ReadonlyArray<Policy>
  readonly maxAskedRetries?: number | undefined
  readonly maxLostSaves?: number | undefined
  readonly summarizerSystemPrompt?: string | undefined
  readonly sliceMs?: number | undefined
  readonly sessionCacheBytes?: number | undefined
  readonly levers?: {
    readonly replyReserveIn?: "window" | "trigger"
    readonly blockLayout?: "reuse" | "summary"
  } | undefined
}

/**
 * What `Compactor.make` gives the engine: the classes of its values, its
 * services, the summary prompt's builders and gate, the memory codec and the
 * deadline.
 *
 * @since 0.1.0
 * @category models
 */
export interface Parts<
  Request extends SummaryOutcome.RequestShape & { readonly instructions?: string | undefined },
  Policy extends RuleData.Policy
> {
  readonly count: (text: string) => number
  readonly settings: Pipeline.Engine<Request>["settings"]
  readonly store: Pipeline.Engine<Request>["store"] & {
    readonly memory?: SessionCache.MemoryStore | undefined
  }
  readonly archive: Pipeline.Engine<Request>["archive"]
  readonly services: SummaryOutcome.Services<Request>
  readonly prompt: Pick<Summarise.Options<Request, Policy>, "buildRequest" | "buildSharedPrefix"> & {
    readonly restoreOpening: (reply: string) => string
    readonly gate: SummaryOutcome.Policy<Request>["gate"]
    /** The cache key of a request made by the summariser of that identity. */
    readonly keyOf: (request: Request, summarizer: SummaryKey.Identity) => SummaryKey.Key
    readonly digest: (key: SummaryKey.Key) => string
  }
  readonly memoryCodec: SessionCache.MemoryCodec
  readonly summaryDeadline: { readonly millis: number; readonly text: string }
  readonly publish: (report: Checkpoint.Compacted) => Effect.Effect<unknown>
}

/**
 * The engine: each checkpoint's line of stages, and the counter the
 * checkpoints count with (`tokensOf`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <
  Request extends SummaryOutcome.RequestShape & { readonly instructions?: string | undefined },
  Policy extends RuleData.Policy
>(
  parts: Parts<Request, Policy>,
  options: Options<Policy>
): {
  readonly compact: (
    input: Pipeline.Input,
    cause: Count.Cause
  ) => Effect.Effect<Checkpoint.Checkpoint, Checkpoint.CompactionError>
  readonly counter: Count.Counter
} => {
  // Each message's content digest, computed once per message object for the engine's life (`SameMessage`).
  const digests = SameMessage.digests()
  const counter = Count.counter(parts.count)
  // Each summary is keyed by who makes it: another summariser's cached summary is a miss.
  const identity = parts.services.summarizer.identity ?? SummaryKey.anonymous
  const summarizeOnce = SummaryOutcome.make<Request>({
    ...parts.services,
    maxAskedRetries: options.maxAskedRetries ?? 3,
    summaryDeadline: parts.summaryDeadline,
    restoreOpening: parts.prompt.restoreOpening,
    gate: parts.prompt.gate,
    keyOf: (request) => parts.prompt.keyOf(request, identity),
    digest: parts.prompt.digest
  })
  const memory = parts.store.memory
  const compact = Pipeline.make<Request>({
    settings: parts.settings,
    store: parts.store,
    archive: parts.archive,
    count: parts.count,
    counter,
    sessions: SessionCache.make(
      options.sessionCacheBytes ?? defaultSessionCacheBytes,
      memory === undefined ? undefined : { store: memory, codec: parts.memoryCodec },
      digests
    ),
    digests,
    summarise: Summarise.make<Request, Policy>({
      summarizeOnce,
      buildRequest: parts.prompt.buildRequest,
      buildSharedPrefix: parts.prompt.buildSharedPrefix,
      policies: options.policies,
      systemPrompt: options.summarizerSystemPrompt
    }),
    policies: options.policies,
    maxLostSaves: options.maxLostSaves ?? 5,
    sliceMs: options.sliceMs ?? defaultSliceMs,
    levers: options.levers,
    publish: parts.publish
  })
  return { compact, counter }
}
