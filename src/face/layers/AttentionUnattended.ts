/**
 * Attention for tests and unattended runs: nobody attending (the choice after
 * a failed retry is always "trim", without asking and without waiting), or a
 * scripted person who answers in order and whose questions a test reads back.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Attention from "../services/Attention.js"

/**
 * Nobody is attending: `attended` is false and `choose` answers "trim" at once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const unattended: Attention.Service = Attention.Attention.of({
  attended: Effect.succeed(false),
  choose: () => Effect.succeed("trim")
})

/**
 * Provides `Attention` for an unattended run: nobody is asked, the answer is always "trim".
 *
 * @example
 * ```ts
 * import { AttentionUnattended } from "context-compressor/layers"
 * import { Attention } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // A batch job nobody watches: when the summariser fails twice, the engine trims without asking.
 * const choice = Effect.flatMap(Attention.Attention, (attention) => attention.choose("the summariser timed out"))
 * assert.strictEqual(await Effect.runPromise(Effect.provide(choice, AttentionUnattended.layer)), "trim")
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Attention.Attention> = Layer.succeed(Attention.Attention, unattended)

/**
 * What a test can read back from scripted attention.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The problems the person was asked about, oldest first. */
  readonly problems: Effect.Effect<ReadonlyArray<string>>
}

/**
 * The inspection side of scripted attention.
 *
 * @since 0.1.0
 * @category tags
 */
export class ScriptedAttention extends Compat.Service<ScriptedAttention, Service>()(
  "context-compressor/layers/AttentionUnattended/ScriptedAttention"
) {}

/**
 * Builds attention where someone is attending and answers with `choices` in
 * order; once they run out the answer is "trim", so a run never loops on
 * retries nor waits. Returns it with its inspection service, as one context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeScripted = (
  choices: ReadonlyArray<Attention.Choice>
): Effect.Effect<Context.Context<Attention.Attention | ScriptedAttention>> =>
  Effect.gen(function*() {
    const asked = yield* Ref.make<ReadonlyArray<string>>([])
    const attention = Attention.Attention.of({
      attended: Effect.succeed(true),
      choose: (problem) => Ref.modify(asked, (problems) => [choices[problems.length] ?? "trim", [...problems, problem]])
    })
    const inspection: Service = { problems: Ref.get(asked) }
    return Context.make(Attention.Attention, attention).pipe(Context.add(ScriptedAttention, inspection))
  })

/**
 * Provides attended `Attention` answering `choices` in order (then "trim"),
 * and the `ScriptedAttention` that reads back the problems it was asked about.
 *
 * @example
 * ```ts
 * import { AttentionUnattended } from "context-compressor/layers"
 * import { Attention } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // A test of a runtime's failure policy: the user answers Retry, then Trim; the problems asked are read back.
 * const program = Effect.gen(function*() {
 *   const attention = yield* Attention.Attention
 *   const choices = [yield* attention.choose("timed out"), yield* attention.choose("timed out again")]
 *   const scripted = yield* AttentionUnattended.ScriptedAttention
 *   return { choices, problems: yield* scripted.problems }
 * })
 * const { choices, problems } = await Effect.runPromise(
 *   program.pipe(Effect.provide(AttentionUnattended.layerScripted(["retry", "trim"])))
 * )
 * assert.deepStrictEqual([choices, problems.length], [["retry", "trim"], 2])
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerScripted = (
  choices: ReadonlyArray<Attention.Choice>
): Layer.Layer<Attention.Attention | ScriptedAttention> => Layer.effectContext(makeScripted(choices))

/**
 * The former name of {@link layer}.
 *
 * @example
 * ```ts
 * import { AttentionUnattended } from "context-compressor/layers"
 *
 * // The same layer under its former name: new code writes `AttentionUnattended.layer`.
 * assert.strictEqual(AttentionUnattended.layerUnattended, AttentionUnattended.layer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `AttentionUnattended.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerUnattended: typeof layer = layer
