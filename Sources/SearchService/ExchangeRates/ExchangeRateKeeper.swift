import AsyncHTTPClient
import FareLensMessages
import FareLensServiceKit
import FareLensStore
import Foundation
import GRDB
import Logging
import Metrics

/// The day's exchange rates (docs/search.md, "Exchange rates"): the file
/// last fetched from `search.exchangeRates.url` (kept in `search.sqlite`,
/// so a restart does not fall back), else the shipped snapshot; fetched
/// again every `search.exchangeRates.intervalSeconds` of real time (the
/// transport clock: the demo's fast clock does not make the ECB publish
/// faster). A failed fetch keeps the rates it had and is retried within an
/// hour; rates older than 4 business days are reported stale (the answer's
/// `stale`, the gauge `farelens_exchange_rates_age_business_days`, a warning
/// in the log), never silently used as fresh.
actor ExchangeRateKeeper {
    private(set) var table: ExchangeRateTable
    private var fetchedAtUnixMs: Int64 = 0
    /// Why the latest fetch failed, with what caused it; nil after a fetch that succeeded.
    private(set) var lastFailure: ExchangeRateFailure?
    private var lastError: String { lastFailure?.reason ?? "" }
    private let url: String?
    private let interval: Duration
    private let http: ProviderHTTP
    private let transport: TransportClock
    private let database: ServiceDatabase
    private let logger: Logger

    init(url: String?, interval: Duration, database: ServiceDatabase, transport: TransportClock, logger: Logger, client: HTTPClient = LiveProviderClient.shared) throws {
        self.url = url
        self.interval = interval
        self.database = database
        self.transport = transport
        self.logger = logger
        http = ProviderHTTP(provider: "exchange-rates", client: client, timeout: .seconds(30), secrets: [])
        table = try ECBReferenceRates.snapshot()
        if let kept = try database.writer.read({ db in try ExchangeRateFileRecord.fetchOne(db, key: 1) }),
            let parsed = try? ECBReferenceRates.parse(kept.xml, source: kept.source), parsed.date >= table.date
        {
            table = parsed
            fetchedAtUnixMs = kept.fetchedAtUnixMs
        }
        // The gauge exists from the service's start, before the first fetch.
        Self.recordAge(table.businessDaysOld(on: CalendarDate.of(transport.now(), in: .gmt)))
    }

    private static func recordAge(_ businessDays: Int) {
        Gauge(label: "farelens_exchange_rates_age_business_days").record(businessDays)
    }

    /// Fetches now and then on the interval, until cancelled; does nothing without a URL.
    func run() async {
        report()
        guard url != nil, interval > .zero else { return }
        while !Task.isCancelled {
            let fetched = await refresh()
            // A failure is retried sooner than the next day, but not in a tight loop.
            let wait = fetched ? interval : min(interval, .seconds(3600))
            do { try await transport.sleep(for: wait) } catch { return }  // safe: the fetch schedule on the transport clock; ends on cancellation
        }
    }

    /// One fetch: true when the file was read and kept (the rates it holds may be the same day's).
    @discardableResult
    func refresh() async -> Bool {
        guard let url else { return false }
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/xml, text/xml")
        do throws(ExchangeRateFailure) {
            let response: ProviderResponse
            do { response = try await http.exchange(request) } catch { throw ExchangeRateFailure(.unreachable, "\(error)", cause: error) }
            guard response.status == 200 else { throw ExchangeRateFailure(.httpStatus, "\(url) answered HTTP \(response.status)") }
            let parsed: ExchangeRateTable
            do { parsed = try ECBReferenceRates.parse(response.body, source: url) } catch { throw ExchangeRateFailure(.unreadable, error.message, cause: error) }
            let now = Int64((transport.now().timeIntervalSince1970 * 1000).rounded())
            do {
                try await database.writer.write { db in
                    try ExchangeRateFileRecord(id: 1, source: url, xml: response.body, fetchedAtUnixMs: now).save(db)
                }
            } catch { throw ExchangeRateFailure(.notKept, "the rates could not be kept: \(error)", cause: error) }
            if parsed.date >= table.date { table = parsed }
            fetchedAtUnixMs = now
            lastFailure = nil
            logger.info("exchange rates fetched", metadata: ["date": "\(parsed.date)", "currencies": "\(parsed.perEuro.count)", "source": "\(url)"])
            report()
            return true
        } catch {
            lastFailure = error
            logger.warning("exchange rates not fetched; keeping those of \(table.date)", metadata: ["error": "\(error.reason)"])
            report()
            return false
        }
    }

    /// The rates and their state, as `ExchangeRatesRequest` answers.
    func status() -> ExchangeRatesResponse {
        let today = CalendarDate.of(transport.now(), in: .gmt)
        var response = ExchangeRatesResponse()
        response.date = table.date.description
        response.source = table.source
        response.ratesPerEuro = table.perEuro.mapValues { "\($0)" }
        response.businessDaysOld = Int32(table.businessDaysOld(on: today))
        response.stale = table.isStale(on: today)
        response.fetchedAtUnixMs = fetchedAtUnixMs
        response.lastError = lastError
        response.fetching = url != nil && interval > .zero
        return response
    }

    /// `amount` in `to`, with the rate and the day it is of.
    func convert(_ request: ConvertMoneyRequest) throws(SearchError) -> ConvertMoneyResponse {
        guard request.hasAmount, Money.isCurrencyCode(request.amount.currency) else {
            throw .invalidField("amount", "an amount in an ISO 4217 currency is required")
        }
        guard Money.isCurrencyCode(request.to) else { throw .invalidField("to", "'\(request.to)' is not an ISO 4217 currency code") }
        var response = ConvertMoneyResponse()
        do {
            response.converted = try table.convert(request.amount, to: request.to)
            response.rate = try table.rateText(from: request.amount.currency, to: request.to)
        } catch {
            throw .unknownCurrency(error.currency ?? request.to, error.message)
        }
        response.date = table.date.description
        response.stale = table.isStale(on: CalendarDate.of(transport.now(), in: .gmt))
        return response
    }

    /// The gauge, and a warning when the rates in use are stale.
    private func report() {
        let age = table.businessDaysOld(on: CalendarDate.of(transport.now(), in: .gmt))
        Self.recordAge(age)
        if age > 4 {
            logger.warning("exchange rates are stale", metadata: ["date": "\(table.date)", "business-days-old": "\(age)", "source": "\(table.source)"])
        }
    }
}

/// Why a fetch failed: a code, words that carry no secret (the ECB's file
/// needs none), and the failure that caused it, kept as itself.
struct ExchangeRateFailure: Error {
    enum Code: String, Sendable {
        /// The request did not get an answer (refused, timed out, TLS).
        case unreachable = "unreachable"
        /// The server answered with a status other than 200.
        case httpStatus = "http-status"
        /// The body is not the ECB's reference-rates file.
        case unreadable = "unreadable"
        /// The rates could not be written to the database.
        case notKept = "not-kept"
    }

    let code: Code
    let reason: String
    /// What failed beneath: the HTTP client's error, the parser's, the database's; nil for a status.
    let underlying: (any Error)?

    init(_ code: Code, _ reason: String, cause underlying: (any Error)? = nil) {
        self.code = code
        self.reason = reason
        self.underlying = underlying
    }
}

/// The file last fetched, as table `exchangeRateFile` keeps it (migration `search-003-exchange-rates`): one row.
struct ExchangeRateFileRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "exchangeRateFile"
    var id: Int
    var source: String
    var xml: Data
    var fetchedAtUnixMs: Int64

    static func migrate(_ db: Database) throws {
        try db.create(table: databaseTableName) { table in
            table.column("id", .integer).primaryKey()
            table.column("source", .text).notNull()
            table.column("xml", .blob).notNull()
            table.column("fetchedAtUnixMs", .integer).notNull()
        }
    }
}
