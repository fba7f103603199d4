/**
 * Settings for tests: fixed settings (the defaults with some values
 * overridden, clamped like any others), or settings backed by a `Ref` that a
 * test changes between two checkpoints through `SettingsControl`, to see them
 * read live. Effect 4 face of `layers/SettingsFixed`.
 *
 * @since 0.1.0
 */
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
 * @since 0.1.0
 * @category layers
 */
export const layer = (overrides?: Overrides): Layer.Layer<Settings.Settings> =>
  Layer.succeed(Settings.Settings, Settings.make({ current: Effect.succeed(settings(overrides)) }))

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
export class SettingsControl extends Context.Service<SettingsControl, Service>()(
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
    return Context.make(Settings.Settings, Settings.make({ current: Ref.get(ref) })).pipe(
      Context.add(SettingsControl, control)
    )
  })

/**
 * Provides `Settings` backed by a `Ref` starting at the defaults, and the
 * `SettingsControl` that changes them between checkpoints.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerRef: Layer.Layer<Settings.Settings | SettingsControl> = Layer.effectContext(makeRef())
