import FareLensBus
import FareLensMessages
import Foundation
import GRDB

extension WatchlistService {
    /// The user as the subscription service knows them now: time zone, tier,
    /// the tier's active-watchlist limit (nil for unlimited) and how many
    /// trips of a range one check scans.
    func currentOwner(_ userID: String) async throws(WatchlistError) -> OwnerRecord {
        guard !userID.isEmpty else { throw .invalidField("user_id", "is required") }
        let found: GetUserResponse?
        do {
            found = try await GetUserRequest.user(userID, on: bus)
        } catch {
            throw .subscriptionUnavailable(cause: error)
        }
        guard let response = found else { throw .unknownUser(userID) }
        let limit = response.entitlements.hasActiveWatchlists ? Int(response.entitlements.activeWatchlists) : nil
        var owner = OwnerRecord(
            userID: userID, timeZone: response.user.timeZone, tier: response.user.tier.rawValue, activeLimit: limit, nextCheckAtUnixMs: 0,
            datePairLimit: Self.datePairLimit(response.entitlements))
        owner.nextCheckAtUnixMs = Self.unixMs(owner.schedule.next(after: clock.now(), in: owner.zone))
        return owner
    }

    /// Stores `fresh` (from ``currentOwner(_:)``), keeping the planned check
    /// when the schedule did not change.
    static func save(_ fresh: OwnerRecord, in db: Database) throws {
        var owner = fresh
        if let stored = try OwnerRecord.fetchOne(db, key: fresh.userID), stored.timeZone == fresh.timeZone, stored.isPro == fresh.isPro {
            owner.nextCheckAtUnixMs = stored.nextCheckAtUnixMs
        }
        try owner.save(db)
    }

    /// The tier's trips per range check; nil from a subscription service that does not say (an older one).
    static func datePairLimit(_ entitlements: Entitlements) -> Int? {
        entitlements.flexibleDatePairs > 0 ? Int(entitlements.flexibleDatePairs) : nil
    }

    /// The user's local date now.
    func today(for owner: OwnerRecord) -> CalendarDate {
        CalendarDate.of(clock.now(), in: owner.zone)
    }
}
