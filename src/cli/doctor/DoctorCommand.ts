import { Command } from "@effect/cli"
import { Effect } from "effect"
import { loadedWhenRun } from "../LazyCommand.js"

const loadDoctor = () => Promise.all([import("./DoctorChecks.js"), import("./DoctorLayers.js")])

/** `vtree doctor`, with the HTTP client it checks OCR health with. */
export const doctorCommand = Command.make(
  "doctor",
  {},
  loadedWhenRun(loadDoctor, ([checks, layers]) => Effect.provide(checks.doctor, layers.http))
).pipe(
  Command.withDescription("Check each configured model provider with one tiny call and print a table")
)
