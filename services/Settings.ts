/**
 * The compaction settings, read live at every checkpoint so that a change
 * applies to running sessions (SPEC R2.11).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

/**
 * The settings of compaction. Values outside their range are clamped by {@link clamp}.
 *
 * @since 0.1.0
 * @category models
 */
export class CompactionSettings extends Schema.Class<CompactionSettings>("CompactionSettings")({
  /** The trigger as a percentage of the context window: 10–95 (default 80). */
  triggerPct: Schema.Number,
  /** The absolute trigger cap in tokens: 10,000–2,000,000 (default 250,000). */
  capTokens: Schema.Number,
  /** The summary budget in tokens (default 16,000). */
  summaryMaxTokens: Schema.Number,
  /** The summariser model; absent: the session's own model. */
  summarizerModel: Schema.optionalWith(Schema.String, { exact: true }),
  /** The fraction of the trigger kept verbatim after the boundary: 0.05–0.8 (default 0.3). */
  keepFraction: Schema.Number,
  /** The cap, in characters, of one tool result rendered into the summariser request (default 4,000). */
  envelopeCapChars: Schema.Number,
  /** Tokens left free for the model's reply under the trigger (default 4,096). */
  replyReserveTokens: Schema.Number
}) {}

/**
 * The defaults of SPEC R2.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults: CompactionSettings = new CompactionSettings({
  triggerPct: 80,
  capTokens: 250_000,
  summaryMaxTokens: 16_000,
  keepFraction: 0.3,
  envelopeCapChars: 4_000,
  replyReserveTokens: 4_096
})

/**
 * The ranges values are clamped to.
 *
 * @since 0.1.0
 * @category constants
 */
export const ranges = {
  triggerPct: [10, 95],
  capTokens: [10_000, 2_000_000],
  summaryMaxTokens: [1_000, 200_000],
  keepFraction: [0.05, 0.8],
  envelopeCapChars: [1_000, 1_000_000],
  replyReserveTokens: [0, 200_000]
} as const

const clampTo = (value: number, [low, high]: readonly [number, number], fallback: number): number =>
  Number.isFinite(value) ? Math.min(Math.max(value, low), high) : fallback

/**
 * Clamps every value into its range (SPEC R2.1: pct 10–95, cap 10k–2M); a
 * value that is not a finite number takes its default.
 *
 * @since 0.1.0
 * @category constructors
 */
export const clamp = (settings: CompactionSettings): CompactionSettings =>
  new CompactionSettings({
    ...settings,
    triggerPct: clampTo(settings.triggerPct, ranges.triggerPct, defaults.triggerPct),
    capTokens: clampTo(settings.capTokens, ranges.capTokens, defaults.capTokens),
    summaryMaxTokens: clampTo(settings.summaryMaxTokens, ranges.summaryMaxTokens, defaults.summaryMaxTokens),
    keepFraction: clampTo(settings.keepFraction, ranges.keepFraction, defaults.keepFraction),
    envelopeCapChars: clampTo(settings.envelopeCapChars, ranges.envelopeCapChars, defaults.envelopeCapChars),
    replyReserveTokens: clampTo(settings.replyReserveTokens, ranges.replyReserveTokens, defaults.replyReserveTokens)
  })

/**
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** The settings now: read at every checkpoint. */
  readonly current: Effect.Effect<CompactionSettings>
}

/**
 * The settings service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Settings extends Context.Tag("context-compressor/Settings")<Settings, Service>() {}
