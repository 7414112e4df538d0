/** A stored run summarized as `vtree report` shows it: the summary model, then text, JSON or HTML. */
export type { Accuracy, GroupAccuracy, Outcome } from "../domain/Outcome.js"
export { summarize } from "../programs/report/Report.js"
export { renderHtml } from "../programs/report/ReportHtml.js"
export { renderJson, renderText } from "../programs/report/ReportText.js"
export type { Summary } from "../programs/report/Summary.js"
