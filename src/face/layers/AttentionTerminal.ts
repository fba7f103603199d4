/**
 * Attention on a terminal (`compact --attended`): when the summariser has
 * failed twice, the problem is written to the terminal and the person types
 * `r` (Retry) or `t` (Trim the oldest turns). Every wait has a deadline: no
 * answer in time, or the input ending, is Trim, the unattended choice.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Stream from "node:stream"
import * as Attention from "../services/Attention.js"

/**
 * How long a question waits for its answer by default: five minutes.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeout: Duration.Duration = Duration.minutes(5)

/**
 * Where the question is asked and how long it waits.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Where the answer is read from (the terminal's standard input). */
  readonly input: Stream.Readable
  /** Where the question is written (standard error, so standard output carries only the result). */
  readonly output: Stream.Writable
  /** How long to wait for an answer before choosing Trim (default {@link defaultTimeout}). */
  readonly timeout?: Compat.DurationInput
}

/**
 * Reads an answer: `r`/`retry` is Retry, `t`/`trim` is Trim, case and spaces
 * aside; anything else is not an answer.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseAnswer = (line: string): Attention.Choice | undefined => {
  const word = line.trim().toLowerCase()
  if (word === "r" || word === "retry") return "retry"
  if (word === "t" || word === "trim") return "trim"
  return undefined
}

/** How many answers that are neither Retry nor Trim are asked again before Trim. */
const maxUnreadable = 3

/** Reads the next line of `input`, or `undefined` when it ends first. */
const nextLine = (input: Stream.Readable): Effect.Effect<string | undefined> =>
  Compat.callback<string | undefined>((resume) => {
    let buffered = ""
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString()
      const end = buffered.indexOf("\n")
      if (end === -1) return
      cleanup()
      // What followed the line is given back, for the next question.
      const rest = buffered.slice(end + 1)
      if (rest !== "") input.unshift(rest)
      resume(Effect.succeed(buffered.slice(0, end)))
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(buffered === "" ? undefined : buffered))
    }
    const cleanup = () => {
      input.off("data", onData)
      input.off("end", onEnd)
      input.off("close", onEnd)
      input.pause()
    }
    input.on("data", onData)
    input.once("end", onEnd)
    input.once("close", onEnd)
    input.resume()
    return Effect.sync(cleanup)
  })

/**
 * Makes attention that asks on `input` and `output`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Attention.Service => {
  const timeout = Compat.durationFromInput(options.timeout ?? defaultTimeout)
  const write = (text: string) => Effect.sync(() => void options.output.write(text))
  const ask = Effect.gen(function*() {
    for (let attempt = 0; attempt < maxUnreadable; attempt++) {
      yield* write(
        `Retry the summariser, or Trim the oldest turns without a summary? [r/t] (t after ${Duration.format(timeout)}) `
      )
      const line = yield* nextLine(options.input)
      if (line === undefined) {
        yield* write("\n(no more input: trimming)\n")
        return "trim" as const
      }
      const choice = parseAnswer(line)
      if (choice !== undefined) return choice
      yield* write(`"${line.trim().slice(0, 40)}" is not r or t.\n`)
    }
    yield* write("(no answer: trimming)\n")
    return "trim" as const
  })
  return {
    attended: Effect.succeed(true),
    choose: (problem) =>
      Effect.andThen(
        write(`\n${problem}\n`),
        ask.pipe(
          Compat.timeoutOrElse({
            duration: timeout,
            orElse: () => Effect.succeed("timed-out" as const)
          }),
          Effect.flatMap((choice) =>
            choice === "timed-out"
              ? Effect.as(write("\n(no answer in time: trimming)\n"), "trim" as const)
              : Effect.succeed(choice)
          )
        )
      )
  }
}

/**
 * Provides `Attention` asking on the given streams.
 *
 * @example
 * ```ts
 * import { AttentionTerminal } from "context-compressor/layers"
 * import { Attention } from "context-compressor/services"
 * import { Effect } from "effect"
 * import { PassThrough } from "node:stream"
 *
 * // Asks on the streams given (a terminal's, a socket's); here the user has already typed "retry".
 * const input = new PassThrough()
 * input.end("retry\n")
 * const terminal = AttentionTerminal.layer({ input, output: new PassThrough(), timeout: "10 seconds" })
 *
 * const choice = Effect.flatMap(Attention.Attention, (attention) => attention.choose("the summariser timed out"))
 * assert.strictEqual(await Effect.runPromise(Effect.provide(choice, terminal)), "retry")
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options): Layer.Layer<Attention.Attention> =>
  Layer.succeed(Attention.Attention, make(options))

/**
 * Provides `Attention` asking on this process's terminal: standard input for
 * the answer, standard error for the question.
 *
 * @example
 * ```ts
 * import { AttentionTerminal, Production, Testing } from "context-compressor/layers"
 * import { builtInPolicies } from "context-compressor/rules"
 *
 * // A command-line agent whose user answers at the terminal (standard input, the question on standard error).
 * export const engine = Production.layerEngine({
 *   engine: { policies: builtInPolicies },
 *   services: Testing.layer(),
 *   attention: AttentionTerminal.layerProcess("2 minutes")
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerProcess = (timeout?: Compat.DurationInput): Layer.Layer<Attention.Attention> =>
  Layer.sync(
    Attention.Attention,
    () => make({ input: process.stdin, output: process.stderr, ...(timeout === undefined ? {} : { timeout }) })
  )
