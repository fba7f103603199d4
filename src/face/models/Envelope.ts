/**
 * The agentic-workspace/v1 tool-result envelope: its schema, and the prefixed
 * ids that name the state an agent resumes from.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Schema from "effect/Schema"
import * as EnvelopeData from "../../core/reduce/EnvelopeData.js"
import * as RuleData from "../../core/reduce/RuleData.js"
import * as Ids from "../../core/working-state/Ids.js"

/**
 * The protocol tag of the envelopes this library knows by heart.
 *
 * @since 0.1.0
 * @category constants
 */
export const protocol: typeof EnvelopeData.protocol = EnvelopeData.protocol

/**
 * The envelope's retention block: how important the result is, facts that must
 * survive, and payload paths the producer allows to be omitted.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Retention = Schema.Struct({
  importance: Schema.optional(Schema.String),
  facts: Schema.optional(Schema.Array(Schema.String)),
  omit_when_summarizing: Schema.optional(Schema.Array(Schema.String))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Retention = typeof Retention.Type

/**
 * An agentic-workspace/v1 envelope. Only the header is required; `data` is
 * whatever the tool returned, and a retention block that does not fit
 * {@link Retention} is read leniently by the rules rather than refused.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Envelope = Compat.StructWithRest(
  {
    protocol: Schema.Literal(protocol),
    tool: Schema.String,
    action: Schema.String,
    ok: Schema.optional(Schema.Boolean),
    summary: Schema.optional(Schema.String),
    data: Schema.optional(Schema.Unknown),
    retention: Schema.optional(Schema.Unknown)
  },
  Compat.Record(Schema.String, Schema.Unknown)
)

/**
 * @since 0.1.0
 * @category models
 */
export type Envelope = typeof Envelope.Type

/**
 * Whether a value is an agentic-workspace/v1 envelope.
 *
 * @since 0.1.0
 * @category guards
 */
export const isEnvelope = Schema.is(Envelope)

/**
 * The keys of the envelope's header: what makes it an envelope. A declared
 * omission may not name them, nor the retention block that declares it.
 *
 * @since 0.1.0
 * @category constants
 */
export const headerKeys: ReadonlyArray<string> = RuleData.envelopeHeaderKeys

/**
 * Past this many characters of a staged approval's `resume.arguments`
 * (compact JSON), the resume call is not carried or repeated: a truncated
 * call is not a call, and the recovery route stands in for it (SPEC R1.4).
 * The retention rules (`Approvals.carryResumeVerbatim`) and the offline
 * summariser both read this one value.
 *
 * @since 0.1.0
 * @category constants
 */
export const resumeLimitChars: typeof EnvelopeData.resumeLimitChars = EnvelopeData.resumeLimitChars

/**
 * The kinds of prefixed ids the protocol uses, in the order a recovery list
 * names them.
 *
 * @since 0.1.0
 * @category constants
 */
export const idPrefixes: typeof Ids.idPrefixes = Ids.idPrefixes

/**
 * @since 0.1.0
 * @category models
 */
export type IdPrefix = Ids.IdPrefix

/**
 * The prefixed ids mentioned in a piece of text, in order of appearance.
 *
 * @since 0.1.0
 * @category getters
 */
export const idsInText: (text: string) => ReadonlyArray<string> = Ids.idsInText

/**
 * The distinct prefixed ids in the strings of a JSON value, in document
 * order, at most `maxDepth` levels deep.
 *
 * @example
 * ```ts
 * import { Envelope } from "context-compressor"
 *
 * const result = {
 *   protocol: "agentic-workspace/v1",
 *   tool: "workspace_command",
 *   action: "run",
 *   ok: true,
 *   data: { job: { id: "job_7f3a", log: "applied tx_8f2c, see run_42" } }
 * }
 * assert.strictEqual(Envelope.isEnvelope(result), true)
 * assert.deepStrictEqual(Envelope.ids(result), ["job_7f3a", "tx_8f2c", "run_42"])
 * ```
 *
 * @since 0.1.0
 * @category getters
 */
export const ids: (value: unknown, maxDepth?: number) => ReadonlyArray<string> = Ids.ids
