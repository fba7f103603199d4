/**
 * The identity of a session: the id under which the engine keeps a history's
 * compaction state when the caller names none. One definition for every
 * program, so the same history posted to the HTTP API, sent through the proxy
 * or given to the Promise API continues the same session. The HTTP front
 * ends (`serve`, the proxy) keep each caller's sessions apart: they scope
 * every id, given or derived, by a digest of the request's credential
 * ({@link callerOf}, {@link scoped}).
 *
 * @since 0.1.0
 */
import * as Crypto from "node:crypto"
import * as Transcript from "../models/Transcript.js"

/**
 * The prefix of a derived session id.
 *
 * @since 0.1.0
 * @category constants
 */
export const idPrefix = "session-"

/**
 * The session id of a history that names none: {@link idPrefix} and 16 hex
 * digits of a SHA-256 digest of its messages up to and including the first
 * user message (each as its kind, the length of its text and its text).
 *
 * The first user message is the anchor because it is the one prefix a history
 * never rewrites: appending messages, a compaction's view or a later turn
 * leave the id unchanged, while two tasks under the same system prompt get
 * two ids. A history without a user message yet (nothing to compact) is named
 * by its first message alone, and the empty history by the digest of nothing.
 *
 * @example
 * ```ts
 * import { Session, Transcript } from "context-compressor"
 *
 * const history: Transcript.Transcript = [
 *   new Transcript.SystemMessage({ id: "m0", content: "You are a coding agent." }),
 *   new Transcript.UserMessage({ id: "m1", content: "Fix the failing test in parser.ts." })
 * ]
 * const later = [...history, new Transcript.AssistantMessage({ id: "m2", content: "Looking at parser.ts.", toolCalls: [] })]
 * assert.match(Session.idOf(history), /^session-[0-9a-f]{16}$/)
 * assert.strictEqual(Session.idOf(later), Session.idOf(history))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const idOf = (history: Transcript.Transcript): string => {
  const hash = Crypto.createHash("sha256")
  const firstUser = history.findIndex((message) => message._tag === "User")
  for (const message of history.slice(0, firstUser === -1 ? 1 : firstUser + 1)) {
    const text = Transcript.text(message)
    hash.update(`${message._tag}:${text.length}:`).update(text)
  }
  return `${idPrefix}${hash.digest("hex").slice(0, 16)}`
}

/**
 * The caller a request's credentials name: 32 hex digits of a SHA-256 digest
 * of each credential's name and value, in the order given, so that two
 * callers with different credentials are two callers and the credential
 * itself is never kept. `undefined` when the request carried none (every
 * value empty or absent): such a request keeps the unscoped sessions of
 * {@link scoped}.
 *
 * @example
 * ```ts
 * import { Session } from "context-compressor"
 *
 * const caller = Session.callerOf([["authorization", "Bearer sk-user-a"]])
 * assert.match(caller!, /^[0-9a-f]{32}$/)
 * assert.notStrictEqual(caller, Session.callerOf([["authorization", "Bearer sk-user-b"]]))
 * assert.strictEqual(Session.callerOf([["authorization", undefined]]), undefined)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const callerOf = (
  credentials: ReadonlyArray<readonly [name: string, value: string | undefined]>
): string | undefined => {
  const given = credentials.filter((credential): credential is readonly [string, string] =>
    credential[1] !== undefined && credential[1].trim() !== ""
  )
  if (given.length === 0) return undefined
  const hash = Crypto.createHash("sha256").update("context-compressor caller\n")
  for (const [name, value] of given) hash.update(`${name.length}:${name}${value.length}:`).update(value)
  return hash.digest("hex").slice(0, 32)
}

/**
 * What a session id scoped to a caller ends with: `.caller-` and the
 * caller's digest ({@link callerOf}).
 *
 * @since 0.1.0
 * @category constants
 */
export const callerSuffix = ".caller-"

const scopedShape = /\.caller-[0-9a-f]{32}$/

/**
 * A session id (given by the caller or derived by {@link idOf}) within the
 * caller's own sessions, the one id the engine keeps its memory, saved
 * compactions and recall handles under: the id, {@link callerSuffix} and the
 * caller's digest. Two callers never share a session, whatever id they send.
 *
 * Without a caller (a request with no credential) the id stays as it is, the
 * scope every such request shares; an id that ends as a scoped one would
 * then name another caller's session, so it gets `.anonymous` after it.
 * Scoping is idempotent: an id already scoped to the caller is kept, so a
 * caller may send back the id a report gave it.
 *
 * @example
 * ```ts
 * import { Session } from "context-compressor"
 *
 * const a = Session.callerOf([["authorization", "Bearer sk-user-a"]])
 * const b = Session.callerOf([["authorization", "Bearer sk-user-b"]])
 * const ofA = Session.scoped(a, "session-0123456789abcdef")
 * assert.notStrictEqual(ofA, Session.scoped(b, "session-0123456789abcdef"))
 * assert.strictEqual(Session.scoped(a, ofA), ofA)
 * assert.notStrictEqual(Session.scoped(b, ofA), ofA)
 * assert.notStrictEqual(Session.scoped(undefined, ofA), ofA)
 * assert.strictEqual(Session.scoped(undefined, "my-task"), "my-task")
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const scoped = (caller: string | undefined, id: string): string => {
  if (caller === undefined) return scopedShape.test(id) ? `${id}.anonymous` : id
  const suffix = `${callerSuffix}${caller}`
  return id.endsWith(suffix) ? id : `${id}${suffix}`
}

/**
 * How many sessions one derived id ({@link idOf}) keeps apart: the id itself
 * and its branches 1 to 7 ({@link branchOf}).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxBranches = 8

const branchShape = /\.branch-[1-9][0-9]*(?=(\.caller-[0-9a-f]{32})?$)/

/**
 * The id of branch `n` of a session whose id was derived from its history's
 * opening ({@link idOf}): the id itself for branch 0, else the id with
 * `.branch-n` before its caller's suffix (if it is {@link scoped}). Two
 * histories that open alike (the same system prompt and first user message)
 * but differ later are two sessions: the engine keeps the second under a
 * branch of the first's id, found by content (the branch whose saved
 * compaction was made from this history's messages), so neither overwrites
 * the other's compaction. A branch id is an id like any: given back, it names
 * that session.
 *
 * @example
 * ```ts
 * import { Session } from "context-compressor"
 *
 * assert.strictEqual(Session.branchOf("session-0123456789abcdef", 0), "session-0123456789abcdef")
 * assert.strictEqual(Session.branchOf("session-0123456789abcdef", 2), "session-0123456789abcdef.branch-2")
 * const caller = Session.callerOf([["authorization", "Bearer sk-user-a"]])
 * const scopedId = Session.scoped(caller, "session-0123456789abcdef")
 * assert.ok(Session.belongsTo(caller, Session.branchOf(scopedId, 1)))
 * assert.strictEqual(Session.familyOf(Session.branchOf(scopedId, 1)), scopedId)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const branchOf = (sessionId: string, n: number): string => {
  if (n === 0) return sessionId
  const caller = scopedShape.exec(sessionId)
  return caller === null
    ? `${sessionId}.branch-${n}`
    : `${sessionId.slice(0, caller.index)}.branch-${n}${caller[0]}`
}

/**
 * The session a branch id ({@link branchOf}) is a branch of; any other id as it is.
 *
 * @since 0.1.0
 * @category getters
 */
export const familyOf = (sessionId: string): string => sessionId.replace(branchShape, "")

/**
 * The ids of a session's branches, its own first ({@link branchOf}, {@link maxBranches}).
 *
 * @since 0.1.0
 * @category getters
 */
export const branchesOf = (sessionId: string): ReadonlyArray<string> =>
  Array.from({ length: maxBranches }, (_, n) => branchOf(sessionId, n))

/**
 * Whether a session id is one of the caller's own: {@link scoped} keeps it as
 * it is. A session of another caller (or, without a caller, any caller's
 * scoped session) is not.
 *
 * @since 0.1.0
 * @category predicates
 */
export const belongsTo = (caller: string | undefined, id: string): boolean => scoped(caller, id) === id
