/**
 * The compactions of a compactor as an async iterator, for `events()`.
 *
 * @since 0.1.0
 */
import type { CompactionReport } from "./Models.js"

/**
 * A small queue an async iterator reads, fed by a listener: `subscribe` is
 * given the function to push a report with and the one to end the iterator,
 * and returns the one that unsubscribes.
 *
 * @since 0.1.0
 * @category constructors
 */
export const iteratorOver = (
  subscribe: (push: (report: CompactionReport) => void, end: () => void) => () => void
): AsyncIterableIterator<CompactionReport> => {
  const buffered: Array<CompactionReport> = []
  const waiting: Array<(result: IteratorResult<CompactionReport>) => void> = []
  let done = false
  const finish = () => {
    if (done) return
    done = true
    unsubscribe()
    for (const resolve of waiting.splice(0)) resolve({ done: true, value: undefined })
  }
  const unsubscribe = subscribe((report) => {
    const resolve = waiting.shift()
    if (resolve !== undefined) resolve({ done: false, value: report })
    else buffered.push(report)
  }, finish)
  const iterator: AsyncIterableIterator<CompactionReport> = {
    next: () => {
      const report = buffered.shift()
      if (report !== undefined) return Promise.resolve({ done: false, value: report })
      if (done) return Promise.resolve({ done: true, value: undefined })
      return new Promise((resolve) => waiting.push(resolve))
    },
    return: () => {
      finish()
      buffered.length = 0
      return Promise.resolve({ done: true, value: undefined })
    },
    [Symbol.asyncIterator]: () => iterator
  }
  return iterator
}
