/**
 * The pending questions of attended compactions on the server: a compaction
 * of `POST /v1/compact` with `"attended": true` runs in a fiber of its own;
 * when the summariser has failed twice it asks Retry or Trim, and the request
 * answers with that question instead of waiting. `POST /v1/questions/{id}`
 * gives the choice to the waiting compaction and answers with what it does
 * next: its result, or its next question. A question not answered in time is
 * Trim, as an unattended session does.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Clock from "effect/Clock"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import * as Crypto from "node:crypto"
import * as AttentionFiber from "../../face/layers/AttentionFiber.js"
import type * as Attention from "../../face/services/Attention.js"

/**
 * A question waiting for its answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Question {
  readonly id: string
  readonly sessionId: string
  readonly problem: string
  readonly choices: ReadonlyArray<Attention.Choice>
  /** When an unanswered question is taken as Trim, in milliseconds since the epoch. */
  readonly expiresAtMs: number
}

/**
 * What an attended compaction did next: asked a question, or ended.
 *
 * @since 0.1.0
 * @category models
 */
export type Step<A, E> =
  | { readonly _tag: "Asked"; readonly question: Question }
  | { readonly _tag: "Ended"; readonly exit: Exit.Exit<A, E> }

/**
 * The questions of one server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Questions {
  /** Runs `effect` attended: its first step, its result or its first question. */
  readonly run: <A, E>(sessionId: string, effect: Effect.Effect<A, E>) => Effect.Effect<Step<A, E>>
  /**
   * Answers a pending question and gives the compaction's next step;
   * `undefined` when no question has this id (never asked, already answered,
   * or expired), or when `owns` (default: any) says its session is not the
   * asker's: such a question is left waiting, as if it were not there.
   */
  readonly answer: (
    id: string,
    choice: Attention.Choice,
    owns?: (question: Question) => boolean
  ) => Effect.Effect<Step<unknown, unknown> | undefined>
  /** The questions now waiting. */
  readonly pending: Effect.Effect<ReadonlyArray<Question>>
}

interface Waiting {
  readonly question: Question
  readonly choice: Deferred.Deferred<Attention.Choice>
  readonly steps: Queue.Queue<Step<unknown, unknown>>
}

/**
 * The default time a question waits for its answer: ten minutes.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.minutes(10)

/**
 * Makes the questions of a server; the compactions run in `scope` (the
 * server's), so that they outlive the request that started them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: { readonly scope: Scope.Scope; readonly timeout?: Compat.DurationInput }
): Questions => {
  const timeout = Compat.durationFromInput(options.timeout ?? defaultTimeout)
  const waiting = new Map<string, Waiting>()

  const run = <A, E>(sessionId: string, effect: Effect.Effect<A, E>): Effect.Effect<Step<A, E>> =>
    Effect.gen(function*() {
      const steps = yield* Queue.unbounded<Step<A, E>>()
      const asker: Attention.Service = {
        attended: Effect.succeed(true),
        choose: (problem) =>
          Effect.gen(function*() {
            const now = yield* Clock.currentTimeMillis
            const question: Question = {
              id: `question-${Crypto.randomUUID()}`,
              sessionId,
              problem,
              choices: ["retry", "trim"],
              expiresAtMs: now + Duration.toMillis(timeout)
            }
            const choice = yield* Deferred.make<Attention.Choice>()
            waiting.set(question.id, { question, choice, steps: steps as Queue.Queue<Step<unknown, unknown>> })
            yield* Queue.offer(steps, { _tag: "Asked", question })
            return yield* Deferred.await(choice).pipe(
              Compat.timeoutOrElse({ duration: timeout, orElse: () => Effect.succeed<Attention.Choice>("trim") }),
              Effect.ensuring(Effect.sync(() => waiting.delete(question.id)))
            )
          })
      }
      yield* effect.pipe(
        AttentionFiber.attend(asker),
        Effect.exit,
        Effect.flatMap((exit) => Queue.offer(steps, { _tag: "Ended", exit })),
        Effect.forkIn(options.scope)
      )
      return yield* Queue.take(steps)
    })

  return {
    run,
    answer: (id, choice, owns = () => true) =>
      Effect.suspend(() => {
        const found = waiting.get(id)
        if (found === undefined || !owns(found.question)) return Effect.succeed(undefined)
        waiting.delete(id)
        return Effect.andThen(Deferred.succeed(found.choice, choice), Queue.take(found.steps))
      }),
    pending: Effect.sync(() => Array.from(waiting.values(), (entry) => entry.question))
  }
}
