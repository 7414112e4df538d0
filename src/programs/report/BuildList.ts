// `vtree runs`: the builds of a database (`vtree build --db`), one line each, from the counts the store makes of
// their videos (no video row is read here). Pure.
import type { BuildProgress } from "../../domain/BuildRecord.js"
import { formatCount } from "../../text/Format.js"
import { formatTable } from "./ReportText.js"

/** `completed` when no video is open, `running` while a worker holds one under a live lease, else `idle`. */
export const buildStatus = (build: BuildProgress): "completed" | "running" | "idle" =>
  build.done + build.failed >= build.videos ? "completed" : build.building > 0 ? "running" : "idle"

const hours = (seconds: number) => (seconds / 3600).toFixed(1)

export const renderBuildsText = (builds: ReadonlyArray<BuildProgress>): string =>
  formatTable(
    ["Build", "Status", "Videos done", "Hours done", "Failed", "Building", "Started", "Last finished"],
    builds.map((b) => [
      b.buildId,
      buildStatus(b),
      `${formatCount(b.done)}/${formatCount(b.videos)}`,
      `${hours(b.doneSeconds)}/${hours(b.totalSeconds)}`,
      formatCount(b.failed),
      b.building === 0 ? "—" : `${formatCount(b.building)} on ${formatCount(b.workers)} workers`,
      new Date(b.startedAt).toISOString(),
      b.lastFinishedAt === null ? "—" : new Date(b.lastFinishedAt).toISOString()
    ]),
    [false, false, true, true, true, true, false, false]
  ) + "\n"
