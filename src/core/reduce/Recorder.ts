/**
 * The recorder the interpreter writes its decisions to, one rule report per
 * rule: counts by action, and the first `RuleData.entriesPerRule` entries in
 * full. Internal: a report is what a caller reads (`Report.Report`), the
 * recorder only how the walk builds it.
 *
 * @since 0.1.0
 */
import * as RuleData from "./RuleData.js"

/**
 * Collects decisions as the interpreter makes them.
 *
 * @since 0.1.0
 * @category constructors
 */
export class Recorder {
  private readonly byRule = new Map<
    string,
    { reason: string; counts: Record<string, number>; entries: Array<RuleData.Entry>; omitted: number }
  >()

  /**
   * Records one decision of a rule.
   *
   * @since 0.1.0
   */
  record(rule: string, reason: string, entry: RuleData.Entry): void {
    this.note(rule, reason, entry.action, () => entry)
  }

  /**
   * Counts one decision of a rule; builds its entry only while the rule lists
   * entries in full (the first {@link RuleData.entriesPerRule}).
   *
   * @since 0.1.0
   */
  note(rule: string, reason: string, action: RuleData.Action, entry: () => RuleData.Entry): void {
    let report = this.byRule.get(rule)
    if (report === undefined) {
      report = { reason, counts: {}, entries: [], omitted: 0 }
      this.byRule.set(rule, report)
    }
    report.counts[action] = (report.counts[action] ?? 0) + 1
    if (report.entries.length < RuleData.entriesPerRule) report.entries.push(entry())
    else report.omitted++
  }

  /**
   * The rule reports, in the order the rules first decided something.
   *
   * @since 0.1.0
   */
  rules(): ReadonlyArray<RuleData.RuleReport> {
    return Array.from(this.byRule, ([rule, r]) => ({
      rule,
      reason: r.reason,
      counts: r.counts,
      entries: r.entries,
      entriesOmitted: r.omitted
    }))
  }
}
