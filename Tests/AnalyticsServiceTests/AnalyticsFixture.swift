import Configuration
import FareLensBus
import FareLensMessages
import FareLensRuntime
import FareLensServiceKit
import FareLensStore
import FareLensTesting
import Foundation
import GRDB
import Testing
@testable import AnalyticsService

/// Base64 of 32 bytes of `byte`: a test pseudonym key.
func testKey(_ byte: UInt8) -> String { Data(repeating: byte, count: 32).base64EncodedString() }

/// An analytics service built the way the node builds it (the descriptor,
/// configuration under `analytics.`), on an in-memory database and a manual clock.
struct AnalyticsFixture: Sendable {
    /// 2026-09-21T14:13:20Z, a Monday (ISO week 2026-W39).
    static let start = Date(timeIntervalSince1970: 1_790_000_000)
    /// The UTC day of `start`, days since 1970-01-01.
    static let startDay = 20_717

    let clock: ManualWallClock
    let database: ServiceDatabase
    let service: AnalyticsService
    let bus: MessageBus

    /// - Parameters:
    ///   - keys: `analytics.pseudonymKeys`; nil for none.
    ///   - database: an existing database (a restart, a key rotation); a new one when nil.
    init(bus: MessageBus = MessageBus(), keys: String? = "1:" + testKey(1), settings: [String: String] = [:], database: ServiceDatabase? = nil, clock: ManualWallClock? = nil) throws {
        self.bus = bus
        self.clock = clock ?? ManualWallClock(Self.start)
        self.database = try database ?? Self.newDatabase()
        var values = settings
        if let keys { values["pseudonymKeys"] = keys }
        let made = try AnalyticsServiceEntry.descriptor.make(
            ServiceContext(bus: bus, database: self.database, logger: quietLogger(), clock: self.clock, configuration: analyticsReader(values))
        )
        service = try #require(made as? AnalyticsService)
        try service.register(on: bus)
    }

    static func newDatabase() throws -> ServiceDatabase {
        var migrations = ServiceMigrations()
        migrations.registerInbox()
        AnalyticsServiceEntry.migrations.forEachMigration { name, migrate in migrations.register(name, migrate) }
        return try ServiceDatabase.inMemory(service: "analytics", migrations: migrations)
    }

    /// This fixture's publisher name: two fixtures on one database never share event ids.
    let publisher = "test-" + UUID().uuidString.prefix(8)

    /// Applies `events` as the subscription would, each with a new id from `publisher` (this fixture's when nil).
    @discardableResult
    func publish(_ events: [any BusEvent], from publisher: String? = nil) async -> Int {
        await service.ingest(events.map { ($0, metadata(for: $0, publisher: publisher ?? self.publisher, sequence: nextSequence())) })
    }

    private let sequence = Locked<UInt64>(0)
    func nextSequence() -> UInt64 {
        sequence.update { $0 += 1 }
        return sequence.get()
    }

    /// Rows of `table`.
    func count(_ table: String) throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }

    /// Durable events the inbox has recorded.
    func appliedEvents() throws -> Int {
        try database.writer.read { db in try ServiceDatabase.appliedEventCount(in: db) }
    }

    /// Every text value in every table of the database, with its table.
    func everyText() throws -> [(table: String, text: String)] {
        try database.writer.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            var found: [(String, String)] = []
            for table in tables {
                for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\"") {
                    for (_, value) in row {
                        if let text = String.fromDatabaseValue(value) { found.append((table, text)) }
                    }
                }
            }
            return found
        }
    }

    /// A report over `from`…`to` (ISO days).
    func report(_ kind: ReportKind, _ from: String, _ to: String, daily: Bool = false) async throws -> AnalyticsReportResponse {
        try await service.report(reportRequest(kind, from, to, daily: daily))
    }
}

/// A reader scoped to "analytics" over `values` (keys without the prefix).
func analyticsReader(_ values: [String: String]) -> ConfigReader {
    var entries: [AbsoluteConfigKey: ConfigValue] = [:]
    for (key, value) in values { entries[AbsoluteConfigKey(stringLiteral: "analytics." + key)] = ConfigValue(.string(value), isSecret: false) }
    return ConfigReader(providers: [InMemoryProvider(values: entries)]).scoped(to: "analytics")
}

func metadata(for event: any BusEvent, publisher: String, sequence: UInt64) -> EventMetadata {
    let type = type(of: event)
    return EventMetadata(id: EventID(publisher: publisher, sequence: sequence), topic: type.topic, typeName: type.wireTypeName, traceID: TraceID(high: 1, low: sequence))
}

func reportRequest(_ kind: ReportKind, _ from: String, _ to: String, daily: Bool = false) -> AnalyticsReportRequest {
    var request = AnalyticsReportRequest()
    request.kind = kind
    request.fromDate = date(from)
    request.toDate = date(to)
    request.daily = daily
    return request
}

func date(_ iso: String) -> LocalDate { CalendarDate(iso: iso)!.message }

/// Unix ms of `iso` (YYYY-MM-DD) at `hour`:00 UTC.
func ms(_ iso: String, hour: Int = 12) -> Int64 {
    Int64(CalendarDate(iso: iso)!.daysSinceEpoch) * 86_400_000 + Int64(hour) * 3_600_000
}

/// A report row as a tuple, for comparing with a hand count.
struct Line: Equatable, CustomStringConvertible {
    let day: String?
    let dimension: String
    let count: Int64
    let hits: Int64
    let rate: Int32
    init(_ dimension: String, _ count: Int64, _ hits: Int64, _ rate: Int32, day: String? = nil) {
        self.day = day
        self.dimension = dimension
        self.count = count
        self.hits = hits
        self.rate = rate
    }
    init(_ row: ReportRow) {
        day = row.hasDay ? CalendarDate(row.day)?.description : nil
        dimension = row.dimension
        count = row.count
        hits = row.hits
        rate = row.rateBasisPoints
    }
    var description: String { "\(day ?? "-") \(dimension.isEmpty ? "TOTAL" : dimension) \(count)/\(hits) \(rate)bp" }
}

func lines(_ response: AnalyticsReportResponse) -> [Line] { response.rows.map(Line.init) }
