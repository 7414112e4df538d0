// A question file without task types (or durations) leaves an axis with no group (a benchmark's categories), or
// every question in one group without a name (`noGroup`, or the empty task type stored for it): a table or chart
// of that says nothing, so the reports say the axis in one line instead.
import { noGroup } from "./Report.js"

/** True when no question has a value on this axis: no group, or only the unnamed one. */
export const isNoneAxis = (groups: ReadonlyArray<{ readonly key: string }>): boolean =>
  groups.every((group) => group.key === noGroup || group.key === "")

/** `Task type: none (no question has one)`: what replaces the axis's table and chart. */
export const noneAxisLine = (title: string): string => `${title}: none (no question has one)`
