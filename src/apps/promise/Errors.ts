/**
 * The rejections of the Promise API: every one is a `CompressorError` with a
 * `reason` to act on.
 *
 * @since 0.1.0
 */

/**
 * Every rejection of this module is one of these, with a `reason` to act on.
 *
 * @since 0.1.0
 * @category errors
 */
export class CompressorError extends Error {
  constructor(readonly reason: string, message: string, options?: { readonly cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
  }
  override get name(): string {
    return this.constructor.name
  }
}

/**
 * The history is not a transcript of the format (or of any known format):
 * `index` names the message at fault, when one is.
 *
 * @since 0.1.0
 * @category errors
 */
export class TranscriptError extends CompressorError {
  constructor(readonly format: string, readonly index: number | undefined, detail: string) {
    super("invalid-transcript", index === undefined ? detail : `${detail} (message ${index})`)
  }
}

/**
 * An option is out of its range, of the wrong kind, or not an option at all
 * (a misspelt key): `option` names it (`settings.triggerPct`, `summarizer.apikey`).
 *
 * @since 0.1.0
 * @category errors
 */
export class OptionError extends CompressorError {
  constructor(readonly option: string, detail: string) {
    super("invalid-option", `${option}: ${detail}`)
  }
}

/**
 * The engine could not give a view: `no-progress` (compacting does not shrink
 * it), `cannot-fit` (the window cannot hold what must stay), `invalid-view`, or
 * `store` (the compaction state could not be read or written).
 *
 * @since 0.1.0
 * @category errors
 */
export class CompactionError extends CompressorError {
  /**
   * What went wrong; see the class's description.
   *
   * @since 0.1.0
   */
  declare readonly reason: "no-progress" | "cannot-fit" | "invalid-view" | "store"
  constructor(
    reason: "no-progress" | "cannot-fit" | "invalid-view" | "store",
    readonly sessionId: string,
    message: string,
    readonly violations: ReadonlyArray<{ readonly kind: string; readonly detail: string }>
  ) {
    super(reason, message)
  }
}

/**
 * The engine could not start: `database` (the state database or the
 * PostgreSQL server), `settings` (an invalid setting in `config.toml` or the
 * environment), `migration`, or `config` (the summariser's configuration).
 *
 * @since 0.1.0
 * @category errors
 */
export class StartError extends CompressorError {
  /**
   * What could not start; see the class's description.
   *
   * @since 0.1.0
   */
  declare readonly reason: "database" | "settings" | "migration" | "config"
  constructor(reason: "database" | "settings" | "migration" | "config", message: string, cause?: unknown) {
    super(reason, message, { cause })
  }
}

/**
 * The call came after `close()` (`closed`), was abandoned through its signal
 * (`aborted`), or met a bug (`unexpected`).
 *
 * @since 0.1.0
 * @category errors
 */
export class StateError extends CompressorError {
  /**
   * Why the call was refused; see the class's description.
   *
   * @since 0.1.0
   */
  declare readonly reason: "closed" | "aborted" | "unexpected"
  constructor(reason: "closed" | "aborted" | "unexpected", message: string, cause?: unknown) {
    super(reason, message, { cause })
  }
}

/**
 * A handle gave nothing back: `invalid-handle`, `other-session` (a handle of
 * another session: its content is never read), `not-found`, `no-archive`,
 * `unreadable` or `invalid-range` (see `Recall.RecallError`).
 *
 * @since 0.1.0
 * @category errors
 */
export class RecallError extends CompressorError {
  /**
   * Why nothing came back; see the class's description.
   *
   * @since 0.1.0
   */
  declare readonly reason:
    | "invalid-handle"
    | "other-session"
    | "not-found"
    | "no-archive"
    | "unreadable"
    | "invalid-range"
  constructor(
    reason: "invalid-handle" | "other-session" | "not-found" | "no-archive" | "unreadable" | "invalid-range",
    readonly sessionId: string,
    readonly handle: string,
    message: string
  ) {
    super(reason, message)
  }
}
