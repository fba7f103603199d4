/**
 * The prompt tokens the upstream reported for each session's last request,
 * with the basis of that request (`ProxyUsage`), from which the proxy gives
 * the next checkpoint its signal (SPEC R2.1). Kept
 * in the process (the newest sessions), and, when the engine's store keeps the
 * sessions' memory (workers on one database), written there as each answer
 * arrives and read from there at each request: a worker that did not relay
 * the session's last answer compacts on the count that answer reported, as
 * the worker that relayed it would.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as CompactionStore from "../../face/services/CompactionStore.js"
import * as ProxyUsage from "./ProxyUsage.js"

/**
 * How many sessions' reported token counts a process remembers (the oldest is forgotten first).
 *
 * @since 0.1.0
 * @category constants
 */
export const rememberedSessions = 10_000

/**
 * @since 0.1.0
 * @category models
 */
export interface Reported {
  /**
   * Records a count an answer reported with the basis of the request it
   * answered (no count or no basis: nothing); its write to the shared store
   * starts now.
   */
  readonly remember: (sessionId: string, tokens: number | undefined, basis: ProxyUsage.Basis | undefined) => void
  /** Waits until this process's writes of the session's count are done (or failed, with a warning). */
  readonly settled: (sessionId: string) => Effect.Effect<void>
  /** The report last made for the session: the shared store's, else this process's. */
  readonly get: (sessionId: string) => Effect.Effect<ProxyUsage.Report | undefined>
}

/**
 * The counts of one proxy, shared through `shared` when given.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (shared: CompactionStore.MemoryStore | undefined): Reported => {
  const local = new Map<string, ProxyUsage.Report>()
  const writing = new Map<string, Fiber.Fiber<void>>()
  const settled = (sessionId: string): Effect.Effect<void> =>
    Effect.suspend(() => {
      const fiber = writing.get(sessionId)
      return fiber === undefined ? Effect.void : Effect.asVoid(Fiber.await(fiber))
    })
  return {
    remember: (sessionId, tokens, basis) => {
      if (tokens === undefined || basis === undefined) return
      local.delete(sessionId)
      local.set(sessionId, { tokens, basis })
      if (local.size > rememberedSessions) local.delete(local.keys().next().value!)
      if (shared === undefined) return
      const previous = writing.get(sessionId)
      const write = Effect.andThen(
        previous === undefined ? Effect.void : Fiber.await(previous),
        shared.report(sessionId, { tokens, basis: ProxyUsage.basisText.encode(basis) }).pipe(
          Compat.catch((error) =>
            Effect.logWarning(
              `context-compressor proxy: session ${sessionId}: the reported token count could not be shared (${error.reason})`
            )
          )
        )
      )
      const fiber = Effect.runFork(write)
      writing.set(sessionId, fiber)
      fiber.addObserver(() => {
        if (writing.get(sessionId) === fiber) writing.delete(sessionId)
      })
    },
    settled,
    get: (sessionId) =>
      shared === undefined
        ? Effect.sync(() => local.get(sessionId))
        : Effect.andThen(settled(sessionId), shared.reported(sessionId)).pipe(
          Effect.map((stored) => {
            const basis = stored?.basis === undefined ? undefined : ProxyUsage.basisText.decode(stored.basis)
            return stored === undefined || basis === undefined ? undefined : { tokens: stored.tokens, basis }
          }),
          Compat.catch((error) =>
            Effect.as(
              Effect.logWarning(
                `context-compressor proxy: session ${sessionId}: the shared token count could not be read (${error.reason}); this worker's is used`
              ),
              local.get(sessionId)
            )
          )
        )
  }
}
