/**
 * The `encrypted_content` of the compaction items an emulating proxy makes
 * for OpenAI's Responses API (`ProxyOpenAiCompaction`): not encrypted but
 * signed, a reference to a session's saved compaction. It names the session
 * (scoped to the caller), the compaction's number and the messages the view
 * kept verbatim after the block, written out, with an HMAC-SHA256 over them
 * under a key the proxy keeps in its store (the folder's SQLite file, or the
 * PostgreSQL database every worker of a fleet shares), so that any worker
 * verifies what another signed.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as NodeCrypto from "node:crypto"
import * as Session from "../../face/engine/Session.js"
import type * as CompactionStore from "../../face/services/CompactionStore.js"

/**
 * The prefix of every token of this proxy's making (the format's version).
 *
 * @since 0.1.0
 * @category constants
 */
export const prefix = "ccx1"

/**
 * The row of the store's session memory that holds the proxy's key; no
 * session id has this shape (`Session.idPrefix`).
 *
 * @since 0.1.0
 * @category constants
 */
export const keyRow = "context-compressor:proxy-compaction-key"

/**
 * What a token refers to: the session (scoped to its caller), its compaction
 * number (0: the session had none, the view alone is in `kept`), and the
 * messages kept verbatim after the block, written out.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reference {
  readonly sessionId: string
  readonly compactions: number
  readonly kept: string
}

/**
 * Why a token was refused, in one sentence the client reads.
 *
 * @since 0.1.0
 * @category models
 */
export interface Refusal {
  readonly _tag: "Refusal"
  readonly message: string
}

const refusal = (message: string): Refusal => ({ _tag: "Refusal", message })

const base64url = (bytes: Buffer | string): string => Buffer.from(bytes).toString("base64url")

const mac = (key: string, payload: string): string =>
  NodeCrypto.createHmac("sha256", Buffer.from(key, "hex")).update(payload).digest("base64url")

/**
 * The signer and verifier of tokens: `sign` a reference, `verify` a token
 * for a caller. The key is read from the store's session memory at each use
 * (made and saved there the first time), so every worker of a store uses the
 * one the store holds; without a store the key lives as long as the process.
 *
 * @since 0.1.0
 * @category models
 */
export interface Tokens {
  readonly sign: (reference: Reference) => Effect.Effect<string, CompactionStore.StoreError>
  readonly verify: (
    token: unknown,
    caller: string | undefined
  ) => Effect.Effect<Reference | Refusal, CompactionStore.StoreError>
}

/**
 * The tokens over a store's session memory, or over a key of the process's
 * own when there is none.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (memory: CompactionStore.MemoryStore | undefined): Tokens => {
  const processKey = NodeCrypto.randomBytes(32).toString("hex")
  const key: Effect.Effect<string, CompactionStore.StoreError> = memory === undefined
    ? Effect.succeed(processKey)
    : Effect.gen(function*() {
      const stored = yield* memory.load(keyRow)
      if (Option.isSome(stored) && /^[0-9a-f]{64}$/.test(stored.value.memory)) return stored.value.memory
      yield* memory.save(keyRow, "hmac-sha256", NodeCrypto.randomBytes(32).toString("hex"))
      // Two workers that made a key at once: the one the store kept is everyone's.
      const kept = yield* memory.load(keyRow)
      return Option.isSome(kept) ? kept.value.memory : processKey
    })
  return {
    sign: (reference) =>
      Effect.map(key, (secret) => {
        const payload = base64url(
          JSON.stringify({ s: reference.sessionId, n: reference.compactions, k: reference.kept })
        )
        return `${prefix}.${payload}.${mac(secret, payload)}`
      }),
    verify: (token, caller) =>
      Effect.gen(function*() {
        if (typeof token !== "string" || token === "") {
          return refusal("the compaction item has no encrypted_content")
        }
        const parts = token.split(".")
        if (parts.length !== 3 || parts[0] !== prefix) {
          return refusal(
            "the compaction item was not made by this proxy (its encrypted_content is not a context-compressor token): " +
              "a provider's compaction cannot be read here; send the history it replaced instead"
          )
        }
        const [, payload, signature] = parts as [string, string, string]
        const expected = Buffer.from(mac(yield* key, payload))
        const given = Buffer.from(signature)
        if (given.length !== expected.length || !NodeCrypto.timingSafeEqual(given, expected)) {
          return refusal(
            "the compaction item's encrypted_content does not verify: it was altered or signed by another proxy"
          )
        }
        let decoded: unknown
        try {
          decoded = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"))
        } catch {
          return refusal("the compaction item's encrypted_content is not readable")
        }
        const fields = typeof decoded === "object" && decoded !== null ? decoded as Record<string, unknown> : {}
        const { k, n, s } = fields
        if (typeof s !== "string" || typeof n !== "number" || !Number.isInteger(n) || n < 0 || typeof k !== "string") {
          return refusal("the compaction item's encrypted_content is not readable")
        }
        if (!Session.belongsTo(caller, s)) {
          return refusal("the compaction item belongs to another caller's session")
        }
        return { sessionId: s, compactions: n, kept: k }
      })
  }
}
