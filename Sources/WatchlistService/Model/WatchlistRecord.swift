import FareLensMessages
import Foundation
import GRDB

/// One watchlist, as the `watchlist` table stores it (migration
/// `watchlist-001-watchlists`), with the result of its latest check. The
/// wire form is ``FareLensMessages/Watchlist``.
struct WatchlistRecord: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "watchlist"

    var watchlistID: String
    var userID: String
    var origin: String
    var destination: String
    /// "Any dates" with a trip length, or a fixed trip.
    var flexible: Bool
    var minTripDays: Int
    var maxTripDays: Int
    /// Fixed trips: `yyyymmdd`; 0 when unset.
    var departureDate: Int
    var returnDate: Int
    var cabin: Int
    var thresholdMinorUnits: Int64?
    var thresholdCurrency: String
    var alertMode: Int
    var muteUntilUnixMs: Int64
    var active: Bool
    var inactiveReason: Int
    var createdAtUnixMs: Int64
    var updatedAtUnixMs: Int64
    /// The latest successful check; nil before the first.
    var lastPriceMinorUnits: Int64?
    var lastPriceCurrency: String = ""
    var lastChangeMinorUnits: Int64?
    var lastChangeBasisPoints: Int?
    var lastCheckedAtUnixMs: Int64 = 0
    var lastDepartureDate: Int = 0
    var lastReturnDate: Int = 0
    var lastOfferID: String = ""
    var lastProvider: String = ""
    var lastSimulated: Bool = false
    var lastStale: Bool = false
    /// The threshold's state: true once a check found the price at or below
    /// it, until a check finds it above it by more than the hysteresis.
    var belowThreshold: Bool = false
    /// The latest check's lowest price in the threshold's currency, the rate and its day, when the two
    /// currencies differ (migration `watchlist-004-converted-checks`); nil and empty otherwise.
    var lastComparedMinorUnits: Int64?
    var lastComparedCurrency: String = ""
    var lastExchangeRate: String = ""
    var lastExchangeRateDate: String = ""
    /// A flexible watchlist's range (migration `watchlist-005-date-ranges`): the earliest departure
    /// and the latest day back, `yyyymmdd`; both 0 for the rolling window.
    var rangeStart: Int = 0
    var rangeEnd: Int = 0
    /// Weekend trips only (Friday or Saturday out, Sunday or Monday back).
    var weekendsOnly: Bool = false
    /// Where the next check's scan of the range starts (``DatePairs/scanned(_:limit:cursor:)``).
    var pairCursor: Int = 0
    /// The latest check's scanned trips (``ScannedPairsText``) and how many trips the range held.
    var lastScannedPairs: String = ""
    var lastRangePairs: Int = 0
    /// Each end's city and metro code, from search's directory when the
    /// route was set (migration `watchlist-007-places`); empty for a route
    /// set before. Carried in the checks' events for alerts' wording.
    var originCity: String = ""
    var originMetro: String = ""
    var destinationCity: String = ""
    var destinationMetro: String = ""

    var threshold: Money? {
        thresholdMinorUnits.map { Money(minorUnits: $0, currency: thresholdCurrency) }
    }

    /// The wire form.
    var message: Watchlist {
        var watchlist = Watchlist()
        watchlist.watchlistID = watchlistID
        watchlist.userID = userID
        watchlist.origin = origin
        watchlist.destination = destination
        if flexible {
            watchlist.dates.flexible.minTripDays = Int32(minTripDays)
            watchlist.dates.flexible.maxTripDays = Int32(maxTripDays)
            if hasRange {
                watchlist.dates.flexible.earliestDeparture = LocalDateNumber.message(rangeStart)
                watchlist.dates.flexible.latestReturn = LocalDateNumber.message(rangeEnd)
            }
            watchlist.dates.flexible.weekendsOnly = weekendsOnly
        } else {
            watchlist.dates.fixed.departureDate = LocalDateNumber.message(departureDate)
            if returnDate != 0 { watchlist.dates.fixed.returnDate = LocalDateNumber.message(returnDate) }
        }
        watchlist.cabin = Cabin(rawValue: cabin) ?? .economy
        if let threshold { watchlist.priceThreshold = threshold }
        watchlist.alertMode = AlertMode(rawValue: alertMode) ?? .priceDrop
        watchlist.muteUntilUnixMs = muteUntilUnixMs
        watchlist.active = active
        watchlist.inactiveReason = Watchlist.InactiveReason(rawValue: inactiveReason) ?? .unspecified
        if let check = lastCheck { watchlist.lastCheck = check }
        watchlist.createdAtUnixMs = createdAtUnixMs
        watchlist.updatedAtUnixMs = updatedAtUnixMs
        return watchlist
    }

    /// The latest check on the wire; nil before the first.
    var lastCheck: WatchlistCheck? {
        guard let lastPriceMinorUnits else { return nil }
        var check = WatchlistCheck()
        check.lowestPrice = Money(minorUnits: lastPriceMinorUnits, currency: lastPriceCurrency)
        if let lastChangeMinorUnits { check.change = Money(minorUnits: lastChangeMinorUnits, currency: lastPriceCurrency) }
        if let lastChangeBasisPoints { check.changeBasisPoints = Int32(clamping: lastChangeBasisPoints) }
        check.checkedAtUnixMs = lastCheckedAtUnixMs
        if lastDepartureDate != 0 { check.departureDate = LocalDateNumber.message(lastDepartureDate) }
        if lastReturnDate != 0 { check.returnDate = LocalDateNumber.message(lastReturnDate) }
        check.offerID = lastOfferID
        check.provider = lastProvider
        check.simulated = lastSimulated
        check.stale = lastStale
        check.belowThreshold = belowThreshold
        if let lastComparedMinorUnits { check.comparedPrice = Money(minorUnits: lastComparedMinorUnits, currency: lastComparedCurrency) }
        check.exchangeRate = lastExchangeRate
        check.exchangeRateDate = lastExchangeRateDate
        check.scannedPairs = ScannedPairsText.pairs(lastScannedPairs)
        check.rangePairs = Int32(clamping: lastRangePairs)
        return check
    }

    /// A flexible watchlist with a date range (rather than the rolling window).
    var hasRange: Bool { flexible && rangeStart != 0 && rangeEnd != 0 }

    /// The trips the range holds from `today` on; empty without a range.
    func datePairs(today: CalendarDate) -> [DatePair] {
        let start = CalendarDate(LocalDateNumber.message(rangeStart)), end = CalendarDate(LocalDateNumber.message(rangeEnd))
        guard hasRange, let start, let end else { return [] }
        return DatePairs.candidates(from: start, to: end, minNights: minTripDays, maxNights: maxTripDays, weekendsOnly: weekendsOnly, today: today)
    }

    /// Keeps what search's directory said of the route's two ends.
    mutating func setPlaces(origin: KnownPlace, destination: KnownPlace) {
        (originCity, originMetro) = (origin.city, origin.metroCode)
        (destinationCity, destinationMetro) = (destination.city, destination.metroCode)
    }

    /// Migration `watchlist-007-places`: each end's city and metro.
    static func migrateForPlaces(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "originCity", .text).notNull().defaults(to: "")
            table.add(column: "originMetro", .text).notNull().defaults(to: "")
            table.add(column: "destinationCity", .text).notNull().defaults(to: "")
            table.add(column: "destinationMetro", .text).notNull().defaults(to: "")
        }
    }

    /// Migration `watchlist-005-date-ranges`: flexible watchlists' ranges and what their checks scanned.
    static func migrateForDateRanges(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "rangeStart", .integer).notNull().defaults(to: 0)
            table.add(column: "rangeEnd", .integer).notNull().defaults(to: 0)
            table.add(column: "weekendsOnly", .boolean).notNull().defaults(to: false)
            table.add(column: "pairCursor", .integer).notNull().defaults(to: 0)
            table.add(column: "lastScannedPairs", .text).notNull().defaults(to: "")
            table.add(column: "lastRangePairs", .integer).notNull().defaults(to: 0)
        }
        try db.alter(table: OwnerRecord.databaseTableName) { table in
            table.add(column: "datePairLimit", .integer)
        }
    }

    /// Migration `watchlist-004-converted-checks`: a check's price in the threshold's currency, and its rate.
    static func migrateForConversion(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "lastComparedMinorUnits", .integer)
            table.add(column: "lastComparedCurrency", .text).notNull().defaults(to: "")
            table.add(column: "lastExchangeRate", .text).notNull().defaults(to: "")
            table.add(column: "lastExchangeRateDate", .text).notNull().defaults(to: "")
        }
    }

    /// The table, created by migration `watchlist-001-watchlists`.
    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("watchlistID", .text).primaryKey()
            table.column("userID", .text).notNull()
            table.column("origin", .text).notNull()
            table.column("destination", .text).notNull()
            table.column("flexible", .boolean).notNull()
            table.column("minTripDays", .integer).notNull()
            table.column("maxTripDays", .integer).notNull()
            table.column("departureDate", .integer).notNull()
            table.column("returnDate", .integer).notNull()
            table.column("cabin", .integer).notNull()
            table.column("thresholdMinorUnits", .integer)
            table.column("thresholdCurrency", .text).notNull()
            table.column("alertMode", .integer).notNull()
            table.column("muteUntilUnixMs", .integer).notNull()
            table.column("active", .boolean).notNull()
            table.column("inactiveReason", .integer).notNull()
            table.column("createdAtUnixMs", .integer).notNull()
            table.column("updatedAtUnixMs", .integer).notNull()
            table.column("lastPriceMinorUnits", .integer)
            table.column("lastPriceCurrency", .text).notNull()
            table.column("lastChangeMinorUnits", .integer)
            table.column("lastChangeBasisPoints", .integer)
            table.column("lastCheckedAtUnixMs", .integer).notNull()
            table.column("lastDepartureDate", .integer).notNull()
            table.column("lastReturnDate", .integer).notNull()
            table.column("lastOfferID", .text).notNull()
            table.column("lastProvider", .text).notNull()
            table.column("lastSimulated", .boolean).notNull()
            table.column("lastStale", .boolean).notNull()
            table.column("belowThreshold", .boolean).notNull()
        }
        try db.create(index: "watchlist_on_user", on: databaseTableName, columns: ["userID", "createdAtUnixMs"])
        try db.create(index: "watchlist_on_route", on: databaseTableName, columns: ["active", "origin", "destination", "cabin"])
    }
}

/// Calendar dates as `yyyymmdd` integers in the table.
enum LocalDateNumber {
    static func number(_ date: LocalDate) -> Int { Int(date.year) * 10_000 + Int(date.month) * 100 + Int(date.day) }

    static func message(_ number: Int) -> LocalDate {
        var date = LocalDate()
        date.year = Int32(number / 10_000)
        date.month = Int32(number / 100 % 100)
        date.day = Int32(number % 100)
        return date
    }
}
