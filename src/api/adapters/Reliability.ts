/**
 * The timeout, retry and call-report policy the built-in adapters use, for adapters written outside vtree:
 * `withPolicy` around each attempt, `reported` around the whole call.
 */
export {
  type CallReport,
  type CallSpan,
  type ProviderPolicy,
  reported,
  retrySchedule,
  withPolicy
} from "../../layers/shared/Reliability.js"
