/**
 * What the benches share: the clock, the collector when `--expose-gc` gives
 * it, medians, and the tables they print.
 */

/** The collector, when node runs with `--expose-gc`. */
export const gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc

/** A monotonic time in nanoseconds. */
export const now = (): bigint => process.hrtime.bigint()

/** Milliseconds since `start`. */
export const elapsedMs = (start: bigint): number => Number(now() - start) / 1e6

/** The median of samples. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Milliseconds with as many decimals as their size needs; NaN as "-". */
export const formatMs = (ms: number): string =>
  Number.isNaN(ms)
    ? "-"
    : ms >= 100
    ? ms.toFixed(0)
    : ms >= 10
    ? ms.toFixed(1)
    : ms >= 1
    ? ms.toFixed(2)
    : ms >= 0.01
    ? ms.toFixed(3)
    : ms.toFixed(4)

/** A count with thousands separators. */
export const formatCount = (n: number): string => Math.round(n).toLocaleString("en-US")

/** Prints rows under their titles, the columns of numbers, ratios and rates right-aligned. */
export const printTable = (titles: ReadonlyArray<string>, rows: ReadonlyArray<ReadonlyArray<string>>): void => {
  const right = titles.map((_, i) => rows.every((r) => /^[-\d.,x×%µskMG]+$|^-$/.test(r[i] ?? "")))
  const widths = titles.map((t, i) => Math.max(t.length, ...rows.map((r) => (r[i] ?? "").length)))
  const line = (cells: ReadonlyArray<string>) =>
    cells.map((cell, i) => (right[i] ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!))).join("  ").trimEnd()
  console.log(line(titles))
  console.log(line(widths.map((w) => "-".repeat(w))))
  for (const r of rows) console.log(line(r))
}

/** A probe of the event loop: a 1 ms timer that records the longest gap between its ticks. */
export interface LoopProbe {
  /** Starts the measure again from now. */
  readonly reset: () => void
  /** The longest gap since the last reset (counting the one still open), and the ticks since then. */
  readonly read: () => { readonly longestGapMs: number; readonly ticks: number }
  readonly stop: () => void
}

/** Starts a {@link LoopProbe}, once its timer has ticked (so the first gap measured is the work's, not the start's). */
export const probeLoop = async (): Promise<LoopProbe> => {
  let last = performance.now()
  let longestGap = 0
  let ticks = 0
  const timer = setInterval(() => {
    const at = performance.now()
    longestGap = Math.max(longestGap, at - last)
    last = at
    ticks++
  }, 1)
  await new Promise((resolve) => setTimeout(resolve, 5))
  return {
    reset: () => {
      last = performance.now()
      longestGap = 0
      ticks = 0
    },
    read: () => ({ longestGapMs: Math.max(longestGap, performance.now() - last), ticks }),
    stop: () => clearInterval(timer)
  }
}
