import FareLensBus
import FareLensMessages
import Foundation
import GRDB

/// The click-out's re-check (docs/analytics.md, "Track record"): right
/// after a traveller clicks to book, search is asked for the same fare
/// again, and the click is counted as having found it still there (at the
/// clicked price or lower) or risen (only higher, or gone).
extension AnalyticsService {
    /// How long a click waits for search to answer before it is counted as
    /// "could not say" (also how old search's answer may be and still count).
    static let clickRecheckFreshness = SearchFlightsResponse.recheckFreshness
    /// Most clicks read in one batch of a pass.
    static let clickRecheckBatch = 32
    /// How long one re-check may wait for search.
    static let clickRecheckTimeout: Duration = .seconds(10)

    /// Re-checks the clicks waiting for it, oldest first, until none waits or
    /// search is away (then the next pass tries again). A click still waiting
    /// 30 minutes after it was recorded (on this service's clock: the
    /// gateway's may differ, as in the demo) is recorded UNCONFIRMED: a fare
    /// found later says nothing about what the traveller found.
    ///
    /// - Returns: outcomes recorded.
    @discardableResult
    func recheckClicks() async -> Int {
        var recorded = 0
        var skipped: Set<String> = []
        while true {
            let waiting: [ClickRecheckRecord]
            let limit = Self.clickRecheckBatch + skipped.count
            do {
                waiting = try read { db in
                    try ClickRecheckRecord.filter(Column("outcome") == 0).order(Column("recordedAtUnixMs"), Column("clientEventID")).limit(limit).fetchAll(db)
                }.filter { !skipped.contains($0.clientEventID) }
            } catch {
                logger.error("clicks to re-check not read", metadata: ["error": "\(error)"])
                return recorded
            }
            guard !waiting.isEmpty else { return recorded }
            for click in waiting {
                let now = clock.now()
                let outcome: RecheckOutcome
                if now.timeIntervalSince(Date(unixMilliseconds: click.recordedAtUnixMs)) > Self.clickRecheckFreshness {
                    outcome = .unconfirmed
                } else {
                    switch await Self.recheck(click, bus: bus, now: now) {
                    case .answered(let found): outcome = found
                    case .searchAway: return recorded
                    case .tryLater:
                        skipped.insert(click.clientEventID)
                        continue
                    }
                }
                // A click whose outcome could not be written is not read again in this pass (a failing database would loop).
                if record(outcome, of: click) { recorded += 1 } else { skipped.insert(click.clientEventID) }
            }
        }
    }

    /// Stores a click's outcome; false when the click is gone meanwhile
    /// (its user's data deleted) or the write failed.
    private func record(_ outcome: RecheckOutcome, of click: ClickRecheckRecord) -> Bool {
        let arguments: StatementArguments = [outcome.rawValue, clock.now().unixMilliseconds, click.clientEventID]
        do {
            return try write { db throws(AnalyticsError) -> Bool in
                try Self.catching {
                    try db.execute(sql: "UPDATE click_recheck SET outcome = ?, recheckedAtUnixMs = ? WHERE clientEventID = ? AND outcome = 0", arguments: arguments)
                    return db.changesCount > 0
                }
            }
        } catch {
            logger.error("a click's re-check not recorded", metadata: ["error": "\(error)"])
            return false
        }
    }

    /// What one re-check of a clicked fare found.
    enum ClickRecheck: Equatable {
        /// Search answered: CONFIRMED, RISEN or UNCONFIRMED (it cannot say, and never will).
        case answered(RecheckOutcome)
        /// Search could not be reached: stop the pass, try again on the next.
        case searchAway
        /// Search answered from its stale fallback: try this click again on the next pass.
        case tryLater
    }

    /// Asks search for the clicked fare again, as a Pro watchlist check
    /// (so an answer cached within 30 minutes counts), without the user's id.
    static func recheck(_ click: ClickRecheckRecord, bus: MessageBus, now: Date) async -> ClickRecheck {
        guard var request = try? SearchFlightsRequest(serializedBytes: click.search) else { return .answered(.unconfirmed) }
        request.purpose = .proWatchlist
        request.userID = ""
        let answer: SearchFlightsResponse
        do {
            answer = try await bus.request(request, timeout: clickRecheckTimeout)
        } catch where error.kind == .remote {
            // Search refused the question (the departure has passed, say): it will not answer it later either.
            return .answered(.unconfirmed)
        } catch {
            return .searchAway
        }
        guard answer.isFresh(at: now) else { return .tryLater }
        guard let lowest = answer.offers.first else { return .answered(.risen) }
        guard lowest.price.currency == click.currency else { return .answered(.unconfirmed) }
        return .answered(lowest.price.minorUnits <= click.priceMinorUnits ? .confirmed : .risen)
    }
}
