import { configDefaults, defineConfig } from "vitest/config"

// Tests that run the built CLI (`node dist/bin.js`, scripts/demo.ts). Only they need dist/, so only
// their project builds it; everything else imports src/ directly and starts in seconds.
const e2e = [
  "test/**/*.e2e.test.ts",
  "test/integration/providers/Doctor.test.ts",
  "test/integration/search/Mcp.test.ts",
  "test/integration/store/ReportCommand.test.ts"
]

export default defineConfig({
  test: {
    // These machines are shared and noisy: integration tests that spawn servers get headroom,
    // while timing itself is only ever asserted through TestClock.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: { name: "unit", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, ...e2e] }
      },
      {
        extends: true,
        // Vitest runs a project's globalSetup only when one of its files is selected, so
        // `npx vitest run test/unit` never builds.
        test: { name: "e2e", include: e2e, globalSetup: ["test/support/globalSetup.ts"] }
      }
    ]
  }
})
