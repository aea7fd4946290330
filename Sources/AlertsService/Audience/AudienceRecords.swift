import FareLensBus
import FareLensMessages
import FareLensServiceKit
import GRDB

/// A watchlist as alerts keeps it (table `audience_watchlist`, migration
/// `alerts-011-kept-audience`), from the watchlist service's
/// `WatchlistChanged`: its route, cabin, owner and whether it is active —
/// what an exceptional deal's watchlist factor needs (SPEC § 2).
struct AudienceWatchlistRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord, ChangeStampedRecord {
    static let databaseTableName = "audience_watchlist"

    var watchlistID: String
    var userID: String
    var origin: String
    var destination: String
    /// `Cabin`'s raw value; an unspecified cabin is kept as economy (the watchlist service's own reading).
    var cabin: Int
    var active: Bool
    /// `at_unix_ms` of the event this row is from: an older event is not applied over it.
    var changedAtUnixMs: Int64
    /// The publisher and sequence of the event this row is from (migration
    /// `alerts-015-watchlist-change-order`; nil in a row kept before it): of
    /// two changes in one millisecond, the earlier in that sequence is not
    /// applied over the later (``ChangeStamp``).
    var changedBy: String?
    var changedSequence: Int64?

    init(_ event: WatchlistChanged, id: EventID?) {
        watchlistID = event.watchlist.watchlistID
        userID = event.watchlist.userID
        origin = event.watchlist.origin
        destination = event.watchlist.destination
        cabin = (event.watchlist.cabin == .unspecified ? Cabin.economy : event.watchlist.cabin).rawValue
        active = event.watchlist.active
        let stamp = ChangeStamp(atUnixMs: event.atUnixMs, id: id)
        (changedAtUnixMs, changedBy, changedSequence) = (stamp.atUnixMs, stamp.publisher, stamp.sequence)
    }
}

/// What alerts knows of a user (table `audience_user`): their alert
/// settings — time zone, quiet hours, tier and its daily cap of immediate
/// alerts, the currency they read prices in — from the subscription
/// service's `UserPreferencesChanged` and `TierChanged`, and a mark after
/// `UserDeleted`. Their preferred airports are rows of ``AudienceAirportRecord``.
struct AudienceUserRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "audience_user"

    var userID: String
    /// `at_unix_ms` of the preferences last applied (`Int64.min`: none yet, only a tier):
    /// an older event is not applied over them.
    var preferencesAtUnixMs: Int64
    /// Set once the user is deleted: no later-arriving event brings back their settings, watchlists or airports
    /// (the two services' events reach alerts in no common order).
    var deletedAtUnixMs: Int64?
    /// IANA time zone ("" until preferences arrive).
    var timeZone = ""
    /// Quiet hours as subscription states them: unset (the default 22:00–07:00), disabled, or a window whose
    /// unset ends default to 22:00 and 07:00 (`QuietHoursWindow(_:)`).
    var quietHoursSet = false
    var quietDisabled = false
    /// Minutes after local midnight; nil when that end is unset.
    var quietStartMinute: Int?
    var quietEndMinute: Int?
    /// ISO 4217 code the user also reads prices in; "" for none.
    var currency = ""
    /// `Tier`'s raw value (0, unspecified: not known yet).
    var tier = 0
    /// Immediate alerts per local day (the tier's entitlement).
    var dailyCap = 0
    /// `at_unix_ms` of the event the tier is from (`Int64.min`: none): an older one is not applied over it.
    var tierAtUnixMs = Int64.min

    init(userID: String, preferencesAtUnixMs: Int64 = .min, deletedAtUnixMs: Int64? = nil) {
        self.userID = userID
        self.preferencesAtUnixMs = preferencesAtUnixMs
        self.deletedAtUnixMs = deletedAtUnixMs
    }

    /// Whether an alert can be decided for the user: their preferences and tier have arrived, and they are not deleted.
    var isKnown: Bool { deletedAtUnixMs == nil && preferencesAtUnixMs != .min && tier != Tier.unspecified.rawValue }

    /// The user's quiet hours as subscription's message states them; nil when unset.
    var quietHours: QuietHours? {
        guard quietHoursSet else { return nil }
        var hours = QuietHours()
        hours.disabled = quietDisabled
        if let start = quietStartMinute { (hours.start.hour, hours.start.minute) = (Int32(start / 60), Int32(start % 60)) }
        if let end = quietEndMinute { (hours.end.hour, hours.end.minute) = (Int32(end / 60), Int32(end % 60)) }
        return hours
    }

    /// Keeps `hours` (nil: unset).
    mutating func setQuietHours(_ hours: QuietHours?) {
        quietHoursSet = hours != nil
        quietDisabled = hours?.disabled ?? false
        quietStartMinute = hours.flatMap { $0.hasStart ? Int($0.start.hour * 60 + $0.start.minute) : nil }
        quietEndMinute = hours.flatMap { $0.hasEnd ? Int($0.end.hour * 60 + $0.end.minute) : nil }
    }

    /// The user and entitlements as subscription would answer them, with what alerts' policy reads.
    var asSubscriptionUser: (user: User, entitlements: Entitlements) {
        var user = User()
        user.userID = userID
        user.timeZone = timeZone
        if let quietHours { user.quietHours = quietHours }
        user.tier = Tier(rawValue: tier) ?? .unspecified
        user.currency = currency
        var entitlements = Entitlements()
        entitlements.tier = user.tier
        entitlements.immediateAlertsPerDay = Int32(clamping: dailyCap)
        return (user, entitlements)
    }
}

/// One of a user's preferred airports with its weight (table `audience_airport`).
struct AudienceAirportRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "audience_airport"

    var userID: String
    /// An IATA airport or metro code, as subscription keeps it (upper case).
    var airport: String
    /// The preference's weight, 0–1 (the deal's queue score is multiplied by 1 + weight).
    var weight: Double
}

/// A watchlist alerts was told is deleted (table `audience_deleted_watchlist`,
/// migration `alerts-014-deleted-watchlists`): a deletion is final, so an
/// earlier event of it that arrives after the deletion (a durable event
/// delivered again after a lost acknowledgement arrives out of order)
/// brings nothing back. One short row per deleted watchlist, kept for good.
struct AudienceDeletedWatchlistRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "audience_deleted_watchlist"

    var watchlistID: String
    /// `at_unix_ms` of the deletion.
    var deletedAtUnixMs: Int64

    /// Migration `alerts-014-deleted-watchlists`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("watchlistID", .text).primaryKey()
            table.column("deletedAtUnixMs", .integer).notNull()
        }
    }
}

enum AudienceTables {
    /// The three tables, created by migration `alerts-011-kept-audience`.
    static func migrate(_ db: Database) throws {
        try db.create(table: AudienceWatchlistRecord.databaseTableName) { table in
            table.column("watchlistID", .text).primaryKey()
            table.column("userID", .text).notNull().indexed()
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("cabin", .integer).notNull()
            table.column("active", .boolean).notNull()
            table.column("changedAtUnixMs", .integer).notNull()
        }
        try db.create(index: "audience_watchlist_on_route", on: AudienceWatchlistRecord.databaseTableName, columns: ["origin", "destination", "cabin"])
        try db.create(table: AudienceUserRecord.databaseTableName) { table in
            table.column("userID", .text).primaryKey()
            table.column("preferencesAtUnixMs", .integer).notNull()
            table.column("deletedAtUnixMs", .integer)
            table.column("timeZone", .text).notNull()
            table.column("quietHoursSet", .boolean).notNull()
            table.column("quietDisabled", .boolean).notNull()
            table.column("quietStartMinute", .integer)
            table.column("quietEndMinute", .integer)
            table.column("currency", .text).notNull()
            table.column("tier", .integer).notNull()
            table.column("dailyCap", .integer).notNull()
            table.column("tierAtUnixMs", .integer).notNull()
        }
        try db.create(table: AudienceAirportRecord.databaseTableName) { table in
            table.column("userID", .text).notNull()
            table.column("airport", .text).notNull().indexed()
            table.column("weight", .double).notNull()
            table.primaryKey(["userID", "airport"])
        }
    }
}
