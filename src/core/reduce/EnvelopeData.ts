/**
 * The agentic-workspace/v1 envelope as the shared core (docs/effect4.md) reads it: its protocol
 * name, its shape as a structural type, and the guard that tells one, with no Effect import. The
 * faces declare the envelope as their Schema (`Envelope.Envelope` on Effect 3), whose values have
 * this shape; the guard accepts what that Schema's `is` accepts.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category constants
 */
export const protocol = "agentic-workspace/v1" as const

/**
 * Past this many characters of `resume.arguments` (compact JSON), the resume call is not carried
 * or repeated: a truncated call is not a call (SPEC R1.4). `Envelope.resumeLimitChars` of a face.
 *
 * @since 0.1.0
 * @category constants
 */
export const resumeLimitChars = 12_000

/**
 * A tool result of the protocol: its header, and any other fields.
 *
 * @since 0.1.0
 * @category models
 */
export interface Envelope {
  readonly protocol: typeof protocol
  readonly tool: string
  readonly action: string
  readonly ok?: boolean | undefined
  readonly summary?: string | undefined
  readonly data?: unknown
  readonly retention?: unknown
  readonly [key: string]: unknown
}

const own = (value: object, key: string): boolean => Object.prototype.hasOwnProperty.call(value, key)

/**
 * Whether a value is an envelope: own `protocol`, `tool` and `action` of the right types, and
 * `ok` and `summary`, when present, a boolean and a string (`undefined` allowed, as the Schema's
 * optional fields allow it).
 *
 * @since 0.1.0
 * @category guards
 */
export const isEnvelope = (value: unknown): value is Envelope => {
  if (typeof value !== "object" || value === null) return false
  const fields = value as Record<string, unknown>
  return own(value, "protocol") && fields["protocol"] === protocol &&
    own(value, "tool") && typeof fields["tool"] === "string" &&
    own(value, "action") && typeof fields["action"] === "string" &&
    (!own(value, "ok") || fields["ok"] === undefined || typeof fields["ok"] === "boolean") &&
    (!own(value, "summary") || fields["summary"] === undefined || typeof fields["summary"] === "string")
}
