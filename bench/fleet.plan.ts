/**
 * The work of the fleet benchmark, computed the same way by the parent and
 * by every worker: 16 generated sessions (`sessions.ts`), checkpointed round
 * by round at growing prefixes; each session is served by 3 of the 8 workers
 * in every round (so they contend on its state and ask for the same
 * summaries), and a quarter of the deliveries come twice to one worker (an
 * at-least-once queue), so compactions of one process also ask at once.
 */
import * as Boundary from "../src/core/checkpoint/Boundary.js"
import type * as Transcript from "../src/face/models/Transcript.js"
import { session, small } from "./sessions.js"

export const workers = 8
export const sessionCount = 16
export const servedBy = 3
export const sessionLength = 240
export const contextWindow = 16_000
export const everyTurns = 6
/** The artificial latency of a summariser call, in milliseconds. */
export const summarizerLatencyMs = 25

export interface PlannedSession {
  readonly sessionId: string
  readonly transcript: Transcript.Transcript
  /** The prefix lengths checkpointed, one a round. */
  readonly checkpoints: ReadonlyArray<number>
}

export const sessions = (): ReadonlyArray<PlannedSession> =>
  Array.from({ length: sessionCount }, (_, index) => {
    const transcript = session(sessionLength, small, 0xf1ee7 + index * 7_919)
    const starts = Boundary.turnStarts(transcript).filter((start) => start > 0)
    const checkpoints = [...starts.filter((_, i) => i % everyTurns === everyTurns - 1), transcript.length]
    return { sessionId: `fleet-${String(index).padStart(2, "0")}`, transcript, checkpoints }
  })

export const rounds = (planned: ReadonlyArray<PlannedSession>): number =>
  Math.max(...planned.map((each) => each.checkpoints.length))

/** The workers serving session `index`: spread so that each worker serves 6 sessions. */
export const workersOf = (index: number): ReadonlyArray<number> =>
  Array.from({ length: servedBy }, (_, k) => (index * servedBy + k) % workers)

/** One checkpoint to make: a session at a prefix. */
export interface Job {
  readonly session: number
  readonly prefix: number
}

/** What worker `worker` does in round `round`, duplicates included, in the order it starts them. */
export const jobsOf = (planned: ReadonlyArray<PlannedSession>, worker: number, round: number): ReadonlyArray<Job> =>
  planned.flatMap((each, index) => {
    const prefix = each.checkpoints[Math.min(round, each.checkpoints.length - 1)]!
    if (!workersOf(index).includes(worker)) return []
    const twice = (index * 31 + worker * 17 + round * 7) % 4 === 0
    return twice ? [{ session: index, prefix }, { session: index, prefix }] : [{ session: index, prefix }]
  }).sort((a, b) => ((a.session + worker) % sessionCount) - ((b.session + worker) % sessionCount))

/** What a worker reports after each round, as one JSON line: `done <json>`. */
export interface RoundReport {
  readonly worker: number
  readonly round: number
  readonly checkpoints: number
  readonly failures: ReadonlyArray<string>
  /** Compactions this worker reported, by session. */
  readonly compacted: Record<string, number>
  /** Versioned saves that won and that lost, by session. */
  readonly saved: Record<string, number>
  readonly conflicts: Record<string, number>
  readonly summarizerCalls: number
  readonly lookups: number
  readonly cacheHits: number
  /** Compactions that took the summary of one in flight in the same process instead of looking it up. */
  readonly sharedInFlight: number
  /** Distinct summaries this worker looked up so far: the calls a cache of its own would have made. */
  readonly distinctLookups: number
}
