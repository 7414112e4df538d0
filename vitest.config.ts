import { defineConfig } from "vitest/config"

// Three projects, chosen by folder, so a new test file lands in its project by where it is put:
//   unit         test/unit/**         in-process only: no child process, no server (not even openai-sim),
//                                     no ffmpeg or OCR workers, no build; seconds.
//   integration  test/integration/**  real servers and programs: PostgreSQL, searx, Chromium, ffmpeg,
//                                     tesseract, openai-sim over HTTP; the CLI run in-process.
//   e2e          test/e2e/**          the built CLI (`node dist/bin.js`), where the process is the point.
// A project's globalSetup runs only when one of its files is selected: `--project unit` starts nothing,
// and only the e2e project builds dist/.
const postgres = "test/support/postgres/globalSetup.ts"

export default defineConfig({
  test: {
    // These machines are shared and noisy: integration tests that spawn servers get headroom,
    // while timing itself is only ever asserted through TestClock.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One module graph per worker, not one per file: loading effect and the app anew for each file
    // was two thirds of the unit project's time and a third of the integration project's. Every file
    // still gets fresh state of its own (servers, folders, databases are made by the file); the setup
    // file undoes the one thing a file leaked into the next (the shared `it` of @effect/vitest).
    poolOptions: { forks: { isolate: false } },
    setupFiles: ["test/support/vitest/PristineIt.ts"],
    projects: [
      { extends: true, test: { name: "unit", include: ["test/unit/**/*.test.ts"] } },
      {
        extends: true,
        test: { name: "integration", include: ["test/integration/**/*.test.ts"], globalSetup: [postgres] }
      },
      {
        extends: true,
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/support/e2e/globalSetup.ts", postgres]
        }
      }
    ]
  }
})
