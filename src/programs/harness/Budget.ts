// `infer --max-cost`: when to stop starting questions. Pure bookkeeping, driven by the harness loop.

/**
 * A question may start while what is spent plus what the questions in flight (this one included) are
 * expected to cost stays within the cap; the expectation is the mean cost of the questions finished
 * so far (0 before the first finishes, so the first `concurrency` questions always start). Once a start
 * is refused, nothing more starts: the run ends `budget_stopped` after the ones in flight finish. A
 * question whose cost is unknown (a role without a price) stops the run too: the cap can no longer be kept.
 */
export class Budget {
  private spent: number
  private finished = 0
  private finishedCost = 0
  private inFlight = 0
  private stoppedFlag = false

  constructor(readonly maxUsd: number, spentBefore = 0) {
    this.spent = spentBefore
  }

  /** True when the question may start (and is now counted in flight). */
  tryStart(): boolean {
    if (this.stoppedFlag) return false
    const estimate = this.finished === 0 ? 0 : this.finishedCost / this.finished
    if (this.spent >= this.maxUsd || this.spent + (this.inFlight + 1) * estimate > this.maxUsd) {
      this.stoppedFlag = true
      return false
    }
    this.inFlight += 1
    return true
  }

  /** A started question finished (or was abandoned) having cost `usd`; null when unknown. */
  finish(usd: number | null): void {
    this.inFlight -= 1
    if (usd === null) {
      this.stoppedFlag = true
      return
    }
    this.spent += usd
    this.finished += 1
    this.finishedCost += usd
  }

  get stopped(): boolean {
    return this.stoppedFlag
  }

  get spentUsd(): number {
    return this.spent
  }
}
