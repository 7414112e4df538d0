import { Command } from "@effect/cli"
import { doctor } from "./DoctorChecks.js"
import * as Doctor from "./DoctorLayers.js"

/** `vtree doctor`, with the HTTP client it checks OCR health with. */
export const doctorCommand = Command.make("doctor", {}, () => doctor).pipe(
  Command.withDescription("Check each configured model provider with one tiny call and print a table"),
  Command.provide(Doctor.http)
)
