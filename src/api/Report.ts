/** A stored run summarized as `vtree report` shows it: the summary model, then text, JSON or HTML. */
export { type Accuracy, type GroupAccuracy, summarize, type Summary } from "../programs/harness/Report.js"
export { renderHtml } from "../programs/harness/ReportHtml.js"
export { renderJson, renderText } from "../programs/harness/ReportText.js"
