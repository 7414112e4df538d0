import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    // These machines are shared and noisy: integration tests that spawn servers get headroom,
    // while timing itself is only ever asserted through TestClock.
    testTimeout: 30_000,
    hookTimeout: 60_000
  }
})
