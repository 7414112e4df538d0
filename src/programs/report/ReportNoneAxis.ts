// A question file without task types (or durations) puts every question in the one group `noGroup`: a table
// or a chart of that single row says nothing, so the reports say the axis in one line instead.
import { noGroup } from "./Report.js"

/** True when no question has a value on this axis (every group is `noGroup`). */
export const isNoneAxis = (groups: ReadonlyArray<{ readonly key: string }>): boolean =>
  groups.length > 0 && groups.every((group) => group.key === noGroup)

/** `Task type: none (no question has one)`: what replaces the axis's table and chart. */
export const noneAxisLine = (title: string): string => `${title}: none (no question has one)`
