/**
 * Lets one polled query run at two paces: every poll while something moves
 * on its own (a rollout, an evaluation), only every `slowIntervalMs` once
 * nothing does. A load asked for by someone (an operator's refresh, a live
 * event, a dialog that changed the record) always fetches.
 *
 * pollQuery keeps one interval; this decides, per poll, whether the last
 * answer may stand in for a request.
 */
export class PacedLoad {
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private forced = true;

  constructor(private readonly slowIntervalMs: number) {}

  /** The next load fetches whatever the pace says. */
  force(): void {
    this.forced = true;
  }

  /** Whether this poll may answer with the last answer instead of a request. */
  mayReuse(moving: boolean): boolean {
    return !this.forced && !moving && Date.now() - this.fetchedAt < this.slowIntervalMs;
  }

  /** Call when a load goes to the API. */
  fetching(): void {
    this.fetchedAt = Date.now();
    this.forced = false;
  }
}
