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
  Number.isNaN(ms) ? "-" : ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms >= 0.01 ? ms.toFixed(3) : ms.toFixed(4)

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
