// The axes a run is reported along, by its benchmark's own rule: Video-MME's three tables as they always
// were, every other benchmark's from its module's headline (LVBench per question type, MLVU per task with
// M-Avg, …), in the report's terms; LongVidSearch's open-ended answers by the judges' majority.
import type { BenchmarkName } from "../../domain/Question.js"
import { benchmarkByName, resultsOfPredictions } from "../benchmarks/StoredResults.js"
import { judgedView } from "./ReportEvidence.js"
import type { ReportPrediction, Summary, SummaryInput } from "./Summary.js"

/** The axes and headline figure of the run's benchmark (Video-MME: the three tables it always had). */
export const benchmarkView = (
  benchmark: BenchmarkName,
  predictions: ReadonlyArray<ReportPrediction>,
  videoMme: Pick<Summary, "byTaskType" | "byDuration" | "byDomain">,
  judgements: NonNullable<SummaryInput["judgements"]> = []
): Pick<Summary, "primary" | "axes" | "groupScores"> => {
  // Its answers are free text: only the judges' verdicts score them, never the letter rule of the headline.
  if (benchmark === "longvidsearch") return judgedView(predictions, judgements)
  if (benchmark === "videomme") {
    return {
      primary: null,
      axes: [
        { axis: "task type", groups: videoMme.byTaskType },
        { axis: "duration", groups: videoMme.byDuration },
        ...(videoMme.byDomain.length === 0 ? [] : [{ axis: "domain", groups: videoMme.byDomain }])
      ]
    }
  }
  const headline = benchmarkByName(benchmark).headline(resultsOfPredictions(predictions, benchmark))
  return {
    primary: headline.primary,
    axes: headline.axes.map(({ axis, groups }) => ({ axis, groups })),
    ...(headline.groupScores === undefined ? {} : { groupScores: headline.groupScores })
  }
}
