/**
 * Settings for tests: fixed settings (the defaults with some values
 * overridden, clamped like any others), or settings backed by a `Ref` that a
 * test changes between two checkpoints through `SettingsControl`, to see them
 * read live.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import * as Settings from "../services/Settings.js"

/**
 * Values that override the defaults (or, for `SettingsControl.set`, the current settings).
 *
 * @since 0.1.0
 * @category models
 */
export type Overrides = Partial<Settings.CompactionSettings>

/**
 * The settings `overrides` give over `base` (the defaults unless given), clamped into their ranges.
 *
 * @since 0.1.0
 * @category constructors
 */
export const settings = (
  overrides?: Overrides,
  base: Settings.CompactionSettings = Settings.defaults
): Settings.CompactionSettings => Settings.clamp(new Settings.CompactionSettings({ ...base, ...overrides }))

/**
 * Provides `Settings` that always read the defaults with `overrides` applied, clamped.
 *
 * @example
 * ```ts
 * import { SettingsFixed, Testing } from "context-compressor/layers"
 * import { Settings } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // Settings given in code, no file or environment read: the defaults with a smaller summary budget.
 * const fixed = SettingsFixed.layer({ summaryMaxTokens: 2_000 })
 * const current = Effect.flatMap(Settings.Settings, (settings) => settings.current)
 * assert.strictEqual((await Effect.runPromise(Effect.provide(current, fixed))).summaryMaxTokens, 2_000)
 * export const services = Testing.layer({ settingsLayer: fixed })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (overrides?: Overrides): Layer.Layer<Settings.Settings> =>
  Layer.succeed(Settings.Settings, Settings.Settings.of({ current: Effect.succeed(settings(overrides)) }))

/**
 * How a test changes the settings of `layerRef` while they are in use.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  /** Applies `overrides` over the current settings, clamped; the next `current` reads them. */
  readonly set: (overrides: Overrides) => Effect.Effect<void>
}

/**
 * The control side of `layerRef`.
 *
 * @since 0.1.0
 * @category tags
 */
export class SettingsControl extends Compat.Service<SettingsControl, Service>()(
  "context-compressor/layers/SettingsFixed/SettingsControl"
) {}

/**
 * Builds `Settings` backed by a `Ref`, starting at the defaults with
 * `overrides` applied, and the `SettingsControl` that changes them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeRef = (overrides?: Overrides): Effect.Effect<Context.Context<Settings.Settings | SettingsControl>> =>
  Effect.gen(function*() {
    const ref = yield* Ref.make(settings(overrides))
    const control: Service = { set: (changes) => Ref.update(ref, (current) => settings(changes, current)) }
    return Context.make(Settings.Settings, Settings.Settings.of({ current: Ref.get(ref) })).pipe(
      Context.add(SettingsControl, control)
    )
  })

/**
 * Provides `Settings` backed by a `Ref` starting at the defaults, and the
 * `SettingsControl` that changes them between checkpoints.
 *
 * @example
 * ```ts
 * import { SettingsFixed } from "context-compressor/layers"
 * import { Settings } from "context-compressor/services"
 * import { Effect } from "effect"
 *
 * // A test that changes the settings between two checkpoints.
 * const program = Effect.gen(function*() {
 *   const settings = yield* Settings.Settings
 *   const control = yield* SettingsFixed.SettingsControl
 *   yield* control.set({ triggerPct: 50 })
 *   return (yield* settings.current).triggerPct
 * })
 * assert.strictEqual(await Effect.runPromise(Effect.provide(program, SettingsFixed.layerRef)), 50)
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRef: Layer.Layer<Settings.Settings | SettingsControl> = Layer.effectContext(makeRef())

/**
 * The former name of {@link layer}.
 *
 * @example
 * ```ts
 * import { SettingsFixed } from "context-compressor/layers"
 *
 * // The same layer under its former name: new code writes `SettingsFixed.layer`.
 * assert.strictEqual(SettingsFixed.layerTest, SettingsFixed.layer)
 * ```
 *
 * @since 0.1.0
 * @category layers
 * @deprecated Use `SettingsFixed.layer`; removed in 0.2.0 (see docs/moved.md).
 */
export const layerTest: typeof layer = layer
