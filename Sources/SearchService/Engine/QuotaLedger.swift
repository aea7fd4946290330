public import FareLensMessages
public import FareLensStore
public import Foundation
public import GRDB

/// Monthly call quota per live provider (SPEC §1), with priority classes:
/// a call of purpose P is allowed while `used < limit × share(P)`:
/// user search 100%, Pro watchlist 98%, Free watchlist 95%, background
/// sweep 90% ("background work stops at 90%"). Crossing 80% and 90%
/// is reported once per period. Counts persist in `search.sqlite`.
///
/// An actor: the counts are its state, and ``admit(_:_:at:)`` checks and
/// charges a call in one step, so concurrent searches cannot overshoot a
/// class's share.
public actor QuotaLedger {
    /// A threshold crossed by a charge: publish a `QuotaWarning`.
    public struct Crossing: Sendable, Equatable {
        public let provider: String
        public let used: Int64
        public let limit: Int64
        public let percent: Int
        public let period: String
    }

    /// The outcome of ``admit(_:_:at:)``.
    public enum Admission: Sendable {
        /// Allowed and counted: the calls used now, and thresholds crossed for the first time.
        case charged(used: Int64, crossings: [Crossing])
        /// Allowed, but the count could not be written (the call goes ahead uncounted).
        case chargeFailed(StoreError)
        /// The purpose's share of the quota is used up.
        case refused
    }

    private struct Usage { var used: Int64 = 0; var warned: Set<Int> = [] }
    private var usages: [String: Usage] = [:]
    /// Calls allowed per provider per UTC month.
    public nonisolated let limit: Int64
    let database: ServiceDatabase?

    /// A ledger allowing `limit` calls per provider per UTC month.
    public init(limit: Int64, database: ServiceDatabase?) {
        self.limit = limit
        self.database = database
    }

    /// The share of the quota a purpose may use.
    public static func share(_ purpose: SearchPurpose) -> Double {
        switch purpose {
        case .userSearch: 1.0
        case .proWatchlist: 0.98
        case .freeWatchlist: 0.95
        default: 0.90
        }
    }

    /// "YYYY-MM" in UTC.
    public static func period(of instant: Date) -> String {
        let date = CalendarDate.of(instant, in: .gmt)
        return String(format: "%04d-%02d", date.year, date.month)
    }

    /// Checks and charges one call of `purpose` to `provider` in one step.
    ///
    /// - Throws: ``FareLensStore/StoreError`` when the count cannot be read
    ///   (the caller refuses the call).
    public func admit(_ provider: String, _ purpose: SearchPurpose, at instant: Date) throws(StoreError) -> Admission {
        guard try allows(provider, purpose, at: instant) else { return .refused }
        do {
            let crossings = try charge(provider, at: instant)
            return .charged(used: try used(provider, at: instant), crossings: crossings)
        } catch {
            return .chargeFailed(error)
        }
    }

    /// Whether a call of `purpose` may go to `provider` now.
    public func allows(_ provider: String, _ purpose: SearchPurpose, at instant: Date) throws(StoreError) -> Bool {
        let used = try usage(provider, period: Self.period(of: instant)).used
        return Double(used) < Double(limit) * Self.share(purpose)
    }

    /// Counts one call; returns the thresholds (80, 90) it crossed for the first time this period.
    public func charge(_ provider: String, at instant: Date) throws(StoreError) -> [Crossing] {
        let period = Self.period(of: instant)
        var usage = try self.usage(provider, period: period)
        usage.used += 1
        SearchMetrics.quotaUsed(provider, usage.used)
        var crossings: [Crossing] = []
        for percent in [80, 90] where usage.used * 100 >= limit * Int64(percent) && !usage.warned.contains(percent) {
            usage.warned.insert(percent)
            crossings.append(Crossing(provider: provider, used: usage.used, limit: limit, percent: percent, period: period))
        }
        let final = usage
        usages[provider + "|" + period] = final
        try database?.write { db in
            try db.execute(
                sql: "INSERT INTO provider_quota (provider, period, used, warned) VALUES (?, ?, ?, ?) ON CONFLICT(provider, period) DO UPDATE SET used = excluded.used, warned = excluded.warned",
                arguments: [provider, period, final.used, final.warned.sorted().map(String.init).joined(separator: ",")]
            )
        }
        return crossings
    }

    /// Records `farelens_search_quota_used` for each of `providers` as the
    /// period containing `instant` stands (0 for a provider not called yet,
    /// and for the simulated market, which counts no calls), so the gauge is
    /// there from the service's start, not from its first counted call. A
    /// count that cannot be read is shown as 0 until the next call.
    public nonisolated func recordUsage(of providers: [String], at instant: Date) {
        let period = Self.period(of: instant)
        for provider in providers {
            let used = try? database?.read { db in
                try Int64.fetchOne(db, sql: "SELECT used FROM provider_quota WHERE provider = ? AND period = ?", arguments: [provider, period])
            }
            SearchMetrics.quotaUsed(provider, (used ?? nil) ?? 0)
        }
    }

    /// Calls counted for `provider` in the period containing `instant`.
    public func used(_ provider: String, at instant: Date) throws(StoreError) -> Int64 {
        try usage(provider, period: Self.period(of: instant)).used
    }

    private func usage(_ provider: String, period: String) throws(StoreError) -> Usage {
        if let known = usages[provider + "|" + period] { return known }
        var loaded = Usage()
        if let (used, warned) = try database?.write({ db -> (Int64, String)? in
            guard let row = try Row.fetchOne(db, sql: "SELECT used, warned FROM provider_quota WHERE provider = ? AND period = ?", arguments: [provider, period]) else { return nil }
            return (row["used"], row["warned"])
        }) {
            loaded.used = used
            loaded.warned = Set(warned.split(separator: ",").compactMap { Int($0) })
        }
        usages[provider + "|" + period] = loaded
        return loaded
    }

    /// The migration creating the ledger's table.
    public static func migrate(_ db: Database) throws {
        try db.execute(sql: "CREATE TABLE provider_quota (provider TEXT NOT NULL, period TEXT NOT NULL, used INTEGER NOT NULL, warned TEXT NOT NULL DEFAULT '', PRIMARY KEY (provider, period))")
    }
}
