/**
 * A bounded first-come, first-served wait queue in front of a running limit:
 * the compactions of `serve` and of the proxy. A request beyond the running
 * limit waits in order of arrival, up to a number of waiting requests and a
 * deadline on its wait; only beyond those is it refused ({@link Refused}),
 * with the seconds after which a retry is likely to find a place, computed
 * from the rate at which the queue has been draining. A request is let in
 * ({@link WaitQueue.admit}) before its body is read, so that the bodies being
 * read count against the bound as those waiting do, and the bytes of the
 * bodies let in are held to a budget.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Http from "#compat-http"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import { defaultLimits } from "./ServerDefaults.js"

/**
 * The limits of a wait queue.
 *
 * @since 0.1.0
 * @category models
 */
export interface Limits {
  /** How many may run at once (at least 1). */
  readonly running: number
  /** How many may wait for a place beyond those running (0: none wait, past the running limit is refused). */
  readonly waiting: number
  /** The longest a request waits for a place before it is refused. */
  readonly maxWait: Compat.DurationInput
  /**
   * The most bytes of request bodies let in at once, being read, waiting or
   * running (default: no bound but the count's). A request that would pass it
   * is refused before its body is read, unless nothing else is let in.
   */
  readonly bytes?: number | undefined
}

/**
 * A request was not let in: the queue was full when it came (`full`), the
 * bytes of the bodies let in would have passed the budget (`bytes`), or it
 * waited past the deadline (`deadline`). `retryAfterSeconds` (at least 1) is
 * when a retry is likely to find a place, from the queue's drain rate.
 *
 * @since 0.1.0
 * @category errors
 */
export class Refused extends Data.TaggedError("WaitQueueRefused")<{
  readonly reason: "full" | "bytes" | "deadline"
  readonly retryAfterSeconds: number
  readonly limits: {
    readonly running: number
    readonly waiting: number
    readonly maxWaitMs: number
    readonly bytes: number
  }
}> {
  override get message(): string {
    const { bytes, maxWaitMs, running, waiting } = this.limits
    switch (this.reason) {
      case "full":
        return `at the limit of ${running} running and ${waiting} waiting: retry in ${this.retryAfterSeconds} s`
      case "bytes":
        return `at the limit of ${bytes} bytes of request bodies let in: retry in ${this.retryAfterSeconds} s`
      case "deadline":
        return `waited ${
          formatSeconds(maxWaitMs)
        } for one of ${running} places without getting one: retry in ${this.retryAfterSeconds} s`
    }
  }
}

const formatSeconds = (millis: number): string => `${Math.round(millis / 100) / 10} s`

/**
 * What a wait queue holds now, and what it has measured.
 *
 * @since 0.1.0
 * @category models
 */
export interface Stats {
  readonly running: number
  readonly waiting: number
  /** Let in and not yet waiting nor running: their bodies are being read. */
  readonly reading: number
  /** The bytes reserved by the requests let in. */
  readonly bytes: number
  /**
   * Places freed per second: the running limit over the mean time of the
   * runs that ended; before the first ends, over how long the oldest running
   * one has run so far (none while nothing runs).
   */
  readonly drainPerSecond: Option.Option<number>
}

/**
 * A request let in by {@link WaitQueue.admit}: it counts against the queue's
 * bound and its bytes against the budget until its scope closes; `run` waits
 * for a place, in order of the call, and runs the effect in it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Admitted {
  /** Runs `effect` once it has a place (never refused as full: it was let in), and frees the place when it ends. */
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Refused, R>
}

/**
 * A wait queue: `run` runs an effect once a place is free, in order of
 * arrival, and gives the place back when the effect ends however it ends;
 * `admit` lets a request in before it reads its body.
 *
 * @since 0.1.0
 * @category models
 */
export interface WaitQueue {
  /** Runs `effect` once it has a place, and frees the place when it ends. */
  readonly run: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E | Refused, R>
  /**
   * Lets a request in before its body is read, reserving `bytes` of the
   * budget, or refuses it at once (`full`, `bytes`) when the running, the
   * waiting and the other requests let in would pass the bound. It counts
   * until the scope closes.
   */
  readonly admit: (bytes: number) => Effect.Effect<Admitted, Refused, Scope.Scope>
  readonly stats: Effect.Effect<Stats>
  readonly limits: Limits
}

type Waiter = {
  state: "waiting" | "granted" | "left"
  readonly granted: Deferred.Deferred<void>
}

/** The weight of the latest run in the mean run time (an exponential moving average). */
const smoothing = 0.2

/** The most a `Retry-After` asks: an hour. */
const maxRetryAfterSeconds = 3_600

/**
 * The seconds after which a refused request should retry: the time the queue
 * takes to drain the `ahead` requests in front of it at `drainPerSecond`, at
 * least 1 and at most an hour; without a rate (nothing runs nor ran), the wait deadline.
 *
 * @since 0.1.0
 * @category retries
 */
export const retryAfterSeconds = (ahead: number, drainPerSecond: Option.Option<number>, maxWaitMs: number): number => {
  const seconds = Option.match(drainPerSecond, {
    onNone: () => maxWaitMs / 1_000,
    onSome: (rate) => (rate > 0 ? ahead / rate : maxRetryAfterSeconds)
  })
  return Math.min(maxRetryAfterSeconds, Math.max(1, Math.ceil(seconds)))
}

/**
 * Makes a wait queue. Its places are handed on in order of arrival: a place
 * freed goes to the request that has waited longest, never to one that comes
 * after it. A request that leaves while waiting (its client went away) takes
 * no place; one that is handed a place as its deadline passes keeps it. The
 * requests let in and reading their bodies count against the bound on those
 * waiting: at most `running + waiting` are let in at once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (limits: Limits): Effect.Effect<WaitQueue> =>
  Effect.sync(() => {
    const running = Math.max(1, Math.floor(limits.running))
    const maxWaiting = Math.max(0, Math.floor(limits.waiting))
    const maxWait = Compat.durationFromInput(limits.maxWait)
    const maxWaitMs = Duration.toMillis(maxWait)
    const maxBytes = limits.bytes === undefined ? Infinity : Math.max(0, limits.bytes)
    let taken = 0
    // A Set iterates in insertion order and deletes in constant time: the queue.
    const waiters = new Set<Waiter>()
    // Let in, neither waiting nor running yet: reading their bodies.
    let reading = 0
    let reservedBytes = 0
    let meanRunMs: number | undefined
    // When each running one started, the oldest first.
    const runningSince = new Set<{ readonly at: number }>()

    const drainPerSecond = (now: number): Option.Option<number> => {
      const oldest = runningSince.values().next()
      const runMs = meanRunMs ?? (oldest.done === true ? undefined : now - oldest.value.at)
      return runMs === undefined ? Option.none() : Option.some(running / Math.max(runMs, 1) * 1_000)
    }

    const refused = (reason: Refused["reason"], now: number) =>
      new Refused({
        reason,
        retryAfterSeconds: retryAfterSeconds(waiters.size + reading + 1, drainPerSecond(now), maxWaitMs),
        limits: { running, waiting: maxWaiting, maxWaitMs, bytes: maxBytes }
      })

    const release = (ranMs: number | undefined) => {
      if (ranMs !== undefined) meanRunMs = meanRunMs === undefined ? ranMs : meanRunMs + smoothing * (ranMs - meanRunMs)
      const next = waiters.values().next()
      if (next.done === true) {
        taken--
        return
      }
      // The place goes straight to the first waiter: nobody arriving meanwhile can take it.
      waiters.delete(next.value)
      next.value.state = "granted"
      Http.doneDeferredUnsafe(next.value.granted, Effect.void)
    }

    /** Leaving the queue: a waiter still waiting is removed; one already granted gives its place on. */
    const leave = (waiter: Waiter) => {
      if (waiter.state === "waiting") waiters.delete(waiter)
      else if (waiter.state === "granted") release(undefined)
      waiter.state = "left"
    }

    /** Whether one more request may be let in, reserving `bytes`: the refusal's reason, or none. */
    const fullness = (bytes: number): Refused["reason"] | undefined => {
      if (taken + waiters.size + reading >= running + maxWaiting) return "full"
      const alone = taken + waiters.size + reading === 0
      return !alone && reservedBytes + bytes > maxBytes ? "bytes" : undefined
    }

    /** A place for a request let in: at once when one is free and nobody waits, else in order of the call. */
    const acquire = (
      restore: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
    ): Effect.Effect<void, Refused> =>
      Effect.suspend(() => {
        if (taken < running && waiters.size === 0) {
          taken++
          return Effect.void
        }
        const waiter: Waiter = { state: "waiting", granted: Compat.makeDeferredUnsafe<void>() }
        waiters.add(waiter)
        return restore(Deferred.await(waiter.granted).pipe(Effect.timeoutOption(maxWait))).pipe(
          Effect.onInterrupt(() => Effect.sync(() => leave(waiter))),
          Effect.flatMap(() => {
            // A place handed over as the deadline passed is kept.
            if (waiter.state === "granted") return Effect.void
            waiters.delete(waiter)
            waiter.state = "left"
            return Effect.flatMap(Clock.currentTimeMillis, (then) => Effect.fail(refused("deadline", then)))
          })
        )
      })

    const runAdmitted = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E | Refused, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function*() {
          yield* acquire(restore)
          const since = { at: yield* Clock.currentTimeMillis }
          runningSince.add(since)
          return yield* restore(effect).pipe(
            Effect.ensuring(Effect.flatMap(Clock.currentTimeMillis, (ended) =>
              Effect.sync(() => {
                runningSince.delete(since)
                release(ended - since.at)
              })))
          )
        })
      )

    const admit = (bytes: number): Effect.Effect<Admitted, Refused, Scope.Scope> =>
      Effect.acquireRelease(
        Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const reason = fullness(bytes)
          if (reason !== undefined) return Effect.fail(refused(reason, now))
          reading++
          reservedBytes += bytes
          return Effect.succeed({ reading: true })
        }),
        (ticket) =>
          Effect.sync(() => {
            if (ticket.reading) reading--
            reservedBytes -= bytes
          })
      ).pipe(Effect.map((ticket): Admitted => ({
        run: (effect) =>
          Effect.suspend(() => {
            if (!ticket.reading) return Effect.die(new Error("WaitQueue: an admitted request runs once"))
            // From here on it counts as waiting or running, no longer as reading.
            ticket.reading = false
            reading--
            return runAdmitted(effect)
          })
      })))

    return {
      run: (effect) => Effect.scoped(Effect.flatMap(admit(0), (admitted) => admitted.run(effect))),
      admit,
      limits: { running, waiting: maxWaiting, maxWait, bytes: maxBytes },
      stats: Effect.map(
        Clock.currentTimeMillis,
        (now): Stats => ({
          running: taken,
          waiting: waiters.size,
          reading,
          bytes: reservedBytes,
          drainPerSecond: drainPerSecond(now)
        })
      )
    }
  })

/**
 * The options of the compaction queue of `serve` and of the proxy.
 *
 * @since 0.1.0
 * @category models
 */
export interface CompactionOptions {
  /** How many compactions may run at once (default `defaultLimits.maxCompactions`). */
  readonly maxCompactions?: number | undefined
  /** How many compactions may wait for a place, in order of arrival (default `defaultLimits.maxQueue`); past it 503 with `Retry-After`. */
  readonly maxQueue?: number | undefined
  /** How long a compaction waits for a place, in milliseconds (default `defaultLimits.queueTimeoutMs`); past it 503 with `Retry-After`. */
  readonly queueTimeoutMs?: number | undefined
  /**
   * The most bytes of request bodies the queue lets in at once, being read,
   * waiting or running (default {@link defaultQueueBytes}); past it 503 with
   * `Retry-After`, before the body is read.
   */
  readonly maxQueueBytes?: number | undefined
}

/**
 * The default budget of a compaction queue's bodies: a body of the largest
 * size for each place, running or waiting, `(maxCompactions + maxQueue) ×
 * maxBodyBytes`.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultQueueBytes = (options: CompactionOptions, maxBodyBytes: number): number =>
  ((options.maxCompactions ?? defaultLimits.maxCompactions) + (options.maxQueue ?? defaultLimits.maxQueue)) *
  maxBodyBytes

/**
 * The compaction queue of a server whose bodies are at most `maxBodyBytes`,
 * from its options and the defaults.
 *
 * @since 0.1.0
 * @category constructors
 */
export const forCompactions = (options: CompactionOptions, maxBodyBytes: number): Effect.Effect<WaitQueue> =>
  make({
    running: options.maxCompactions ?? defaultLimits.maxCompactions,
    waiting: options.maxQueue ?? defaultLimits.maxQueue,
    maxWait: options.queueTimeoutMs ?? defaultLimits.queueTimeoutMs,
    bytes: options.maxQueueBytes ?? defaultQueueBytes(options, maxBodyBytes)
  })
