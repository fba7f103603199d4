/**
 * The caller of a request to `serve` or the proxy, and the sessions it may
 * name. A caller is a digest of the credential its request carried
 * (`Session.callerOf`), taken once per request and never kept in clear; every
 * session id a route reads, given (`x-session-id`, `sessionId`) or derived
 * from the transcript (`Session.idOf`), is scoped to it (`Session.scoped`),
 * so that two credentials never share a session's memory, saved compactions,
 * cache restores or recall handles. A request without a credential keeps the
 * unscoped sessions every such request shares. See `docs/proxy.md`.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as CompactDocument from "../../face/adapters/CompactDocument.js"
import * as Session from "../../face/engine/Session.js"
import { tokenHeader } from "./ServerDefaults.js"

/**
 * The request headers that name the proxy's caller: the upstream's keys as
 * OpenAI (`Authorization`), Anthropic (`x-api-key`) and Azure OpenAI
 * (`api-key`) clients send them, and the proxy's own token.
 *
 * @since 0.1.0
 * @category constants
 */
export const proxyCredentials: ReadonlyArray<string> = ["authorization", "x-api-key", "api-key", tokenHeader]

/**
 * The request header that names the caller of `serve`: its bearer token's
 * `Authorization`.
 *
 * @since 0.1.0
 * @category constants
 */
export const serveCredentials: ReadonlyArray<string> = ["authorization"]

/**
 * The caller of a request: the digest of the credential headers it carries
 * among `names` (its headers by lower-case name, as `Headers` keeps them), or
 * `undefined` when it carries none.
 *
 * @since 0.1.0
 * @category constructors
 */
export const of = (
  headers: Readonly<Record<string, string | undefined>>,
  names: ReadonlyArray<string>
): string | undefined => Session.callerOf(names.map((name) => [name, headers[name]] as const))

/**
 * Reads a document as `CompactDocument.read` does, its session (the one
 * given, else the one its transcript stands for) scoped to the caller: the
 * one way a route of `serve` or the proxy comes to a session id.
 *
 * @since 0.1.0
 * @category reading
 */
export const read = (
  caller: string | undefined,
  source: Omit<CompactDocument.Source, "_tag">,
  sessionId?: string | undefined
): Effect.Effect<CompactDocument.Read, CompactDocument.CompactDocumentError> =>
  Effect.map(
    CompactDocument.read(source, sessionId),
    (read): CompactDocument.Read => ({ ...read, sessionId: Session.scoped(caller, read.sessionId) })
  )
