// The errors a person can act on: each carries a message that says what failed and what to do. The CLI's error
// channel is this union; any other failure is a bug in vtree and is reported as one (cli/ErrorReport.ts).
import type { ValidationError } from "@effect/cli"
import { Schema } from "effect"
import { ConfigurationError } from "../config/ConfigurationError.js"
import { MediaError, SubtitleError } from "../domain/Media.js"
import { ProviderError } from "../domain/ProviderError.js"
import { QuestionLoadError } from "../domain/Question.js"
import { SearchError } from "../domain/Search.js"
import { TreeDecodeError } from "../domain/Tree.js"
import { FrameSelectionError, NodeNotFound } from "../domain/TreeIndex.js"
import { UserJsonError } from "../domain/UserJson.js"
import { BuildError } from "../programs/builder/BuildError.js"
import { DoctorFailed } from "../programs/doctor/Doctor.js"
import { InferError } from "../programs/harness/InferError.js"
import { TreeImportError } from "../programs/import/ImportedVideo.js"
import { JudgePromptError } from "../programs/judge/JudgePrompt.js"
import { LibraryError } from "../programs/mcp/VideoLibrary.js"
import { PromptPackError } from "../programs/prompts/PromptManager.js"
import { PackError } from "../programs/tree/pack/PackError.js"
import { TreePageError } from "../programs/tree/TreePage.js"
import { UnsafeIdError } from "../programs/tree/TreePreflight.js"
import { RunStoreError } from "../services/RunStore.js"
import { ExportError } from "./export/ExportRun.js"
import { JudgeError } from "./judge/JudgeRun.js"
import { McpError } from "./mcp/McpError.js"
import { ReportError } from "./report/ReportRun.js"
import { OutputFileError } from "./shared/OutputFile.js"
import { PricesError } from "./shared/Prices.js"

/** A flag's value that the command cannot use, found after @effect/cli parsed it (e.g. an unknown task type). */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  reason: Schema.Literal("InvalidValue"),
  option: Schema.String,
  message: Schema.String
}) {}

const userErrors = [
  BuildError,
  ConfigurationError,
  DoctorFailed,
  ExportError,
  FrameSelectionError,
  InferError,
  LibraryError,
  McpError,
  MediaError,
  NodeNotFound,
  OutputFileError,
  PackError,
  PricesError,
  PromptPackError,
  ProviderError,
  QuestionLoadError,
  ReportError,
  RunStoreError,
  SearchError,
  SubtitleError,
  TreeDecodeError,
  TreeImportError,
  TreePageError,
  UnsafeIdError,
  UsageError,
  UserJsonError,
  JudgeError,
  JudgePromptError
] as const

/** Every failure a command may end in: a user's error, or @effect/cli's own (already printed as usage). */
export type CliError = InstanceType<typeof userErrors[number]> | ValidationError.ValidationError

/** Whether `error` is one of the errors written for people (by class, not by the shape of its fields). */
export const isUserError = (error: unknown): error is InstanceType<typeof userErrors[number]> =>
  userErrors.some((userError) => error instanceof userError)
