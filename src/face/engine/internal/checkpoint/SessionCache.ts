/**
 * The engine's memory of each session between checkpoints: how far the
 * transcript was found clean, where the boundary and pinned messages were,
 * token counts by message id, and the last view given back (what keeps a
 * provider's prompt cache between compactions). Bounded by estimated bytes,
 * the session used least recently forgotten first; a forgotten session loses
 * nothing but time. With a store that keeps the sessions' memory (workers on
 * one database), the last view and counts are written there after each
 * checkpoint and read back when another worker wrote them since: this
 * worker's caches are then a cache of it.
 *
 * The one place a session's memory changes: a checkpoint's stages read a
 * snapshot of it ({@link Snapshot}) and give back what changed, and
 * {@link Sessions.commit} applies that once, at the end of the checkpoint.
 * It also holds the per-session lock ({@link Sessions.serialized}): one
 * checkpoint per session at a time in an engine, whichever front end asked.
 *
 * @since 0.1.0
 */
import * as Compat from "#compat"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Hash from "node:crypto"
import type * as CheckpointData from "../../../../core/checkpoint/CheckpointData.js"
import type * as Count from "../../../../core/checkpoint/Count.js"
import * as MemoryView from "../../../../core/checkpoint/MemoryView.js"
import type * as Restore from "../../../../core/checkpoint/Restore.js"
import * as SameMessage from "../../../../core/checkpoint/SameMessage.js"
import * as ViewRepair from "../../../../core/checkpoint/ViewRepair.js"
import * as Transcript from "../../../../core/transcript/TranscriptData.js"

/**
 * A token count the engine keeps by message id, with the text it was counted for.
 *
 * @since 0.1.0
 * @category models
 */
export type TokenCount = Count.TokenCount

/**
 * What the engine keeps of one session. Only this module changes it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Session extends Restore.Hints {
  /** How far the transcript was found to need no repair. */
  readonly clean: ViewRepair.Clean
  /** The tokens of the last view given back, and the digest of the transcript it was made of. */
  readonly lastSent: Count.LastSent | undefined
  /** The last view given back (`sent`), and the view it was made from before the ladder (`base`), message for message. */
  readonly lastView: Restore.LastView | undefined
  /** The transcript's length at the session's last compaction. */
  readonly compactedAt: number
  /** Token counts by message id, with the text they were counted for. */
  readonly counts: ReadonlyMap<string, TokenCount>
  /** The version of the shared memory this session's last view and counts are (none: not read or written yet). */
  readonly version?: string | undefined
  /** A last view read from the shared memory, matched to the transcript's view at the next restore. */
  readonly pendingView?: MemoryView.PendingView | undefined
  /** The transcript of the last checkpoint of a derived id or its branch: its length and content digest (`Seen`). */
  readonly lastSeen?: Seen | undefined
}

/**
 * A transcript as a session of a derived id remembers it: its length and the
 * digest of its messages (`SameMessage.digestOfAll`). A later transcript that
 * does not begin with those very messages is another history.
 *
 * @since 0.1.0
 * @category models
 */
export interface Seen {
  readonly length: number
  readonly digest: string
}

/**
 * A session's memory as a checkpoint reads it: taken when the checkpoint
 * starts, unchanged by anything the checkpoint or another does meanwhile.
 *
 * @since 0.1.0
 * @category models
 */
export type Snapshot = Readonly<Session>

/**
 * What a checkpoint changed in its session's memory, as its stages gave it:
 * the repair's clean scan, the counts it made, the hints restore and save
 * found, the last view restore matched, and what the checkpoint's view left
 * ({@link Sessions.settle}). Applied once by {@link Sessions.commit}.
 *
 * @since 0.1.0
 * @category models
 */
export interface Changes {
  clean?: ViewRepair.Clean | undefined
  /** Token counts made by this checkpoint, by message id. */
  counts?: ReadonlyMap<string, TokenCount> | undefined
  hints?: Restore.Hints | undefined
  /** The last view as restore matched it (a pending view from the shared memory, once matched, is this worker's). */
  restored?: { readonly lastView: Restore.LastView | undefined } | undefined
  /** What the view given back leaves. */
  settled?: Settled | undefined
  /** The transcript the checkpoint was of, when the session is a derived id's. */
  seen?: Seen | undefined
}

/**
 * What a checkpoint's view leaves in its session's memory.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settled {
  readonly lastSent: Count.LastSent
  readonly lastView: Restore.LastView | undefined
  /** The transcript's length, when the checkpoint compacted. */
  readonly compactedAt: number | undefined
}

/**
 * What one session's caches take, estimated: a count entry, a view message's
 * text (UTF-16) and a few references.
 *
 * @since 0.1.0
 * @category getters
 */
export const bytesOf = (session: Snapshot): number => {
  let bytes = 512 + session.counts.size * 96 + session.clean.calls.size * 48
  if (session.lastView !== undefined) {
    for (const message of session.lastView.sent) bytes += 64 + Transcript.text(message).length * 2
  }
  if (session.verified !== undefined) {
    for (const message of session.verified.source) bytes += 64 + Transcript.text(message).length * 2
  }
  return bytes
}

/**
 * What a checkpoint leaves in its session's memory, and the checkpoint as
 * given back: the view under the transcript's own ids, its repairs, whether
 * it keeps the last view's head (`prefixStable`) and the messages since the
 * last compaction. A function of the checkpoint and the snapshot it read
 * (with the last view as restore matched it).
 *
 * @since 0.1.0
 * @category sessions
 */
export const settle = <Report>(
  session: Pick<Snapshot, "compactedAt">,
  settled: {
    readonly checkpoint: Omit<CheckpointData.CheckpointData<Report>, "repairs">
    /** The view before the ladder the checkpoint's view was made from. */
    readonly base: Transcript.Transcript
    /** The last view given back before this checkpoint, as restore matched it. */
    readonly lastView: Restore.LastView | undefined
    readonly transcriptLength: number
    /** The transcript's digest (`SameMessage.digestOfAll`), which an overflow checks the last sent against. */
    readonly transcriptDigest: string
    readonly renamed: ViewRepair.Renamed | undefined
    readonly repairs: ReadonlyArray<CheckpointData.Repair>
  }
): { readonly checkpoint: CheckpointData.CheckpointData<Report>; readonly settled: Settled } => {
  const { base, checkpoint, renamed, repairs, transcriptDigest, transcriptLength } = settled
  const last = settled.lastView?.sent
  const prefixStable = checkpoint.compacted === undefined && last !== undefined &&
    last.length <= checkpoint.view.length && last.every((message, index) => checkpoint.view[index] === message)
  const compactedAt = checkpoint.compacted !== undefined ? transcriptLength : undefined
  return {
    checkpoint: {
      ...checkpoint,
      view: ViewRepair.restoreIds(checkpoint.view, renamed),
      repairs,
      prefixStable,
      sinceCompaction: Math.max(transcriptLength - (compactedAt ?? session.compactedAt), 0)
    },
    settled: {
      lastSent: { tokens: checkpoint.tokens, digest: transcriptDigest },
      lastView: base.length === checkpoint.view.length ? { base, sent: checkpoint.view } : undefined,
      compactedAt
    }
  }
}

/**
 * The sessions of one engine.
 *
 * @since 0.1.0
 * @category models
 */
export interface Sessions {
  /** A session's memory (a new one empty), marked as used now. */
  readonly get: (sessionId: string) => Snapshot
  /**
   * The last transcript a session saw (`Session.lastSeen`): this engine's memory of it, left as it is (not
   * marked as used, none made); with a store that keeps the sessions' memory, the memory as `load` brings it.
   */
  readonly seen: (sessionId: string) => Effect.Effect<Seen | undefined>
  /**
   * Marks a session as the one of a transcript before its checkpoint runs (its last transcript seen is that
   * one), so that another history looking for a session of its own does not take it meanwhile.
   */
  readonly claim: (sessionId: string, seen: Seen) => void
  /**
   * A session's memory (as `get`), brought up to the shared memory first when
   * the store keeps one and another worker wrote it since: its last view,
   * counts and compaction point replace this worker's. A memory that cannot be
   * read is a warning: the session goes on from this worker's caches.
   */
  readonly load: (sessionId: string) => Effect.Effect<Snapshot>
  /**
   * Applies what a checkpoint changed in its session's memory, once, at its
   * end; then measures the session's caches and forgets the least recently
   * used sessions past the bound.
   */
  readonly commit: (sessionId: string, changes: Changes) => void
  /**
   * Writes a session's memory after a checkpoint, when the store keeps one;
   * a failed write is a warning (another worker then builds its view from an
   * older memory: the prompt cache's prefix may be lost, never a message).
   */
  readonly persist: (sessionId: string) => Effect.Effect<void>
  /**
   * Runs a checkpoint of a session holding the session's lock: of the
   * checkpoints of one session, one runs at a time, in the order they asked;
   * those of different sessions run at once. Every front end's checkpoints go
   * through the engine, so they all share it.
   */
  readonly serialized: <A, E>(sessionId: string, checkpoint: Effect.Effect<A, E>) => Effect.Effect<A, E>
}

/** A session with nothing known yet. */
const fresh = (): Session => ({
  counts: new Map(),
  boundaryHint: 0,
  pinnedHint: [],
  clean: ViewRepair.empty,
  lastSent: undefined,
  lastView: undefined,
  compactedAt: 0
})

/**
 * Where workers on one store keep the sessions' memory, as
 * `CompactionStore.MemoryStore` is shaped.
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryStore {
  /** The session's memory, none when no checkpoint wrote one; fails with the store's `StoreError`. */
  readonly load: (
    sessionId: string
  ) => Effect.Effect<Option.Option<{ readonly version: string; readonly memory: string }>, StoreFailure>
  /** Replaces the session's memory; fails with the store's `StoreError`. */
  readonly save: (sessionId: string, version: string, memory: string) => Effect.Effect<void, StoreFailure>
}

/**
 * The face's codec of a session's memory as the store keeps it (`SessionMemory`).
 *
 * @since 0.1.0
 * @category models
 */
export interface MemoryCodec {
  readonly encode: (memory: {
    readonly lastSent: Count.LastSent | undefined
    readonly compactedAt: number
    readonly lastView: { readonly base: Transcript.Transcript; readonly sent: Transcript.Transcript } | undefined
    readonly lastSeen?: Seen | undefined
  }, digests?: SameMessage.Digests) => string
  readonly decode: (text: string) => Compat.Result<Memory | undefined, string>
}

/**
 * A session's memory as the store keeps it, decoded.
 *
 * @since 0.1.0
 * @category models
 */
export interface Memory {
  readonly lastSent?: Count.LastSent | undefined
  readonly compactedAt: number
  readonly seen?: Seen | undefined
  readonly view?: MemoryView.PendingView | undefined
}

/**
 * A session's memory as the store keeps it, before the face's Schema encodes
 * it: the last sent tokens, the compaction point, and the last view as the
 * fingerprints of its base and the messages the ladder changed in it (by
 * position). `encodeMessage` is the face's encoding of a message: a changed
 * message is one whose encoding differs from the base's at its position.
 *
 * @since 0.1.0
 * @category codecs
 */
export const memoryOf = <M extends Transcript.Message>(
  memory: Parameters<MemoryCodec["encode"]>[0],
  encodeMessage: (message: M) => unknown,
  digests: SameMessage.Digests = SameMessage.digests()
) => {
  const sameContent = (a: M, b: M): boolean =>
    a === b || (a._tag === b._tag && a.id === b.id && Transcript.text(a) === Transcript.text(b) &&
      JSON.stringify(encodeMessage(a)) === JSON.stringify(encodeMessage(b)))
  const { lastView } = memory
  return {
    ...(memory.lastSent === undefined
      ? {}
      : {
        lastSent: {
          tokens: memory.lastSent.tokens,
          ...(memory.lastSent.digest === undefined ? {} : { digest: memory.lastSent.digest })
        }
      }),
    compactedAt: memory.compactedAt,
    ...(memory.lastSeen === undefined
      ? {}
      : { seen: { length: memory.lastSeen.length, digest: memory.lastSeen.digest } }),
    ...(lastView === undefined ? {} : {
      view: {
        base: lastView.base.map((message) => MemoryView.fingerprintOf(message, digests)),
        changed: (lastView.sent as ReadonlyArray<M>).flatMap((message, index) => {
          const base = lastView.base[index] as M | undefined
          return base !== undefined && sameContent(message, base) ? [] : [[index, message] as const]
        })
      }
    })
  }
}

/** A store's failure, as both faces' `StoreError` say it. */
interface StoreFailure {
  readonly reason: string
}

/**
 * The memory of the sessions of one engine, at most `maxBytes` (estimated)
 * of caches; kept in `shared` too when the store keeps the sessions' memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  maxBytes: number,
  shared?: { readonly store: MemoryStore; readonly codec: MemoryCodec } | undefined,
  digests: SameMessage.Digests = SameMessage.digests()
): Sessions => {
  const sessions = new Map<string, Session>()
  // The estimated bytes of each session's caches, as last measured; their sum.
  const measured = new Map<string, number>()
  let cachedBytes = 0
  // The lock of each session some checkpoint holds or waits for, and how many do.
  const locks = new Map<string, { readonly lock: Compat.Semaphore; waiting: number }>()
  const get = (sessionId: string): Session => {
    const cached = sessions.get(sessionId) ?? fresh()
    // Used now: the most recent in the map's order, the last to be forgotten.
    sessions.delete(sessionId)
    sessions.set(sessionId, cached)
    return cached
  }
  const set = (sessionId: string, session: Session): void => {
    if (sessions.has(sessionId)) sessions.set(sessionId, session)
  }
  const measure = (sessionId: string): void => {
    const session = sessions.get(sessionId)
    if (session === undefined) return
    const bytes = bytesOf(session)
    cachedBytes += bytes - (measured.get(sessionId) ?? 0)
    measured.set(sessionId, bytes)
    for (const [oldest] of sessions) {
      if (cachedBytes <= maxBytes || oldest === sessionId) break
      sessions.delete(oldest)
      cachedBytes -= measured.get(oldest) ?? 0
      measured.delete(oldest)
    }
  }
  const commit: Sessions["commit"] = (sessionId, changes) => {
    const session = sessions.get(sessionId)
    // A session forgotten while its checkpoint ran is not brought back.
    if (session === undefined) return
    const counts = session.counts as Map<string, TokenCount>
    if (changes.counts !== undefined) { for (const [id, count] of changes.counts) counts.set(id, count) }
    let next: Session = session
    if (changes.clean !== undefined) next = { ...next, clean: changes.clean }
    if (changes.hints !== undefined) {
      next = {
        ...next,
        boundaryHint: changes.hints.boundaryHint,
        pinnedHint: changes.hints.pinnedHint,
        ...(changes.hints.verified === undefined ? {} : { verified: changes.hints.verified })
      }
    }
    if (changes.restored !== undefined) next = { ...next, lastView: changes.restored.lastView, pendingView: undefined }
    if (changes.seen !== undefined) next = { ...next, lastSeen: changes.seen }
    const settled = changes.settled
    if (settled !== undefined) {
      const compactedAt = settled.compactedAt ?? next.compactedAt
      next = { ...next, lastSent: settled.lastSent, lastView: settled.lastView, compactedAt }
    }
    set(sessionId, next)
    if (settled !== undefined) measure(sessionId)
  }
  const load = (sessionId: string): Effect.Effect<Snapshot> =>
    Effect.gen(function*() {
      if (shared === undefined) return get(sessionId)
      const stored = yield* shared.store.load(sessionId).pipe(
        Effect.map(Option.getOrUndefined),
        Compat.catch((error) =>
          Effect.as(
            Effect.logWarning(
              `context-compressor: session ${sessionId}: its shared memory could not be read (${error.reason}); this worker's is used`
            ),
            undefined
          )
        )
      )
      const session = get(sessionId)
      if (stored === undefined || stored.version === session.version || stored.version === "") return session
      const memory = yield* Compat.matchResult<Memory | undefined, string, Effect.Effect<Memory | undefined>>(
        shared.codec.decode(stored.memory),
        {
          onSuccess: Effect.succeed,
          onFailure: (error) =>
            Effect.as(
              Effect.logWarning(
                `context-compressor: session ${sessionId}: its shared memory does not decode (${error}); this worker's is used`
              ),
              undefined
            )
        }
      )
      if (memory === undefined) return session
      const brought: Session = {
        ...session,
        version: stored.version,
        lastSent: memory.lastSent,
        compactedAt: memory.compactedAt,
        lastSeen: memory.seen,
        lastView: undefined,
        pendingView: memory.view
      }
      set(sessionId, brought)
      return brought
    })
  const persist = (sessionId: string): Effect.Effect<void> =>
    Effect.gen(function*() {
      const session = sessions.get(sessionId)
      if (shared === undefined || session === undefined) return
      const version = Hash.randomUUID()
      const text = shared.codec.encode(session, digests)
      yield* Effect.matchEffect(shared.store.save(sessionId, version, text), {
        onSuccess: () => Effect.sync(() => set(sessionId, { ...(sessions.get(sessionId) ?? session), version })),
        onFailure: (error) =>
          Effect.logWarning(
            `context-compressor: session ${sessionId}: its memory could not be shared (${error.reason}); other workers use an older one`
          )
      })
    })
  const serialized: Sessions["serialized"] = (sessionId, checkpoint) =>
    Effect.suspend(() => {
      let held = locks.get(sessionId)
      if (held === undefined) {
        held = { lock: Compat.makeSemaphoreUnsafe(1), waiting: 0 }
        locks.set(sessionId, held)
      }
      const { lock } = held
      const entry = held
      entry.waiting++
      return Effect.ensuring(
        lock.withPermits(1)(checkpoint),
        Effect.sync(() => {
          if (--entry.waiting === 0) locks.delete(sessionId)
        })
      )
    })
  const seen: Sessions["seen"] = (sessionId) =>
    shared === undefined
      ? Effect.sync(() => sessions.get(sessionId)?.lastSeen)
      : Effect.map(load(sessionId), (session) => session.lastSeen)
  const claim: Sessions["claim"] = (sessionId, seen) => set(sessionId, { ...get(sessionId), lastSeen: seen })
  return { get, seen, claim, load, commit, persist, serialized }
}
