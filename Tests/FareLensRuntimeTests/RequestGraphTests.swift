import Foundation
import Testing

/// Requests between services form a one-way graph (docs/architecture.md):
/// no service asks, directly or through others, a service that asks it.
/// What one needs of a service that depends on it travels in that
/// service's events instead (search keeps its sweep targets from the
/// watchlist and subscription services' events).
///
/// The check reads the sources: the message catalog's request types and
/// the address each is served at (`extension X: BusRequest { … address … }`
/// in FareLensMessages), and which services' sources name which request
/// types. A service names another's request type only to send it (the
/// `+Bus.swift` helpers, such as `GetUserRequest.user(_:on:)`, are static
/// members of the request type, so their callers name it too).
@Suite("Request graph")
struct RequestGraphTests {
    static let sources = ServiceBoundaryTests.sources

    /// Service target → the address it serves.
    static let addresses = [
        "SearchService": "search", "ScoringService": "scoring", "WatchlistService": "watchlist",
        "SubscriptionService": "subscription", "AlertsService": "alerts", "AnalyticsService": "analytics",
    ]

    /// Request type name → the address that serves it, from FareLensMessages' sources.
    static func requestAddresses(in sources: URL) throws -> [String: String] {
        let pattern = try NSRegularExpression(pattern: #"extension (\w+): BusRequest \{[^}]*?address: ServiceAddress \{ \.(\w+) \}"#)
        var found: [String: String] = [:]
        let directory = sources.appendingPathComponent("FareLensMessages")
        for file in try FileManager.default.contentsOfDirectory(atPath: directory.path) where file.hasSuffix("+Bus.swift") {
            let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
            for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                guard let type = Range(match.range(at: 1), in: text), let address = Range(match.range(at: 2), in: text) else { continue }
                found[String(text[type])] = String(text[address])
            }
        }
        return found
    }

    /// Asking address → asked address → the request types (with the file naming each).
    static func edges(in sources: URL) throws -> [String: [String: Set<String>]] {
        let requests = try requestAddresses(in: sources)
        var edges: [String: [String: Set<String>]] = [:]
        for (service, own) in addresses {
            let directory = sources.appendingPathComponent(service)
            guard let files = FileManager.default.enumerator(atPath: directory.path) else { continue }
            for case let file as String in files where file.hasSuffix(".swift") {
                // Code only: a comment may name a request type the service does not send.
                let text = try String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8)
                    .split(separator: "\n").filter { !$0.drop(while: { $0 == " " }).hasPrefix("//") }.joined(separator: "\n")
                let words = Set(text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }).map(String.init))
                for (type, address) in requests where address != own && words.contains(type) {
                    edges[own, default: [:]][address, default: []].insert("\(type) (\(service)/\(file))")
                }
            }
        }
        return edges
    }

    /// Every cycle of the graph, each as its addresses from the smallest round to it again.
    static func cycles(in edges: [String: [String: Set<String>]]) -> [[String]] {
        var found: Set<[String]> = []
        func walk(_ path: [String]) {
            for next in (edges[path.last!] ?? [:]).keys.sorted() {
                if next == path[0] {
                    // Each cycle once: from its smallest address.
                    if path.min() == path[0] { found.insert(path + [next]) }
                } else if !path.contains(next) {
                    walk(path + [next])
                }
            }
        }
        for start in edges.keys.sorted() { walk([start]) }
        return found.sorted { $0.joined() < $1.joined() }
    }

    @Test("No service asks, directly or through others, a service that asks it")
    func noRequestCycle() throws {
        let edges = try Self.edges(in: Self.sources)
        // The catalog was read: the alerts service's stale-price re-check asks search.
        #expect(edges["alerts"]?["search"]?.contains { $0.hasPrefix("SearchFlightsRequest") } == true)
        let cycles = Self.cycles(in: edges)
        let described = cycles.map { cycle in
            zip(cycle, cycle.dropFirst()).map { "\($0) → \($1) by \(edges[$0]![$1]!.sorted().joined(separator: ", "))" }.joined(separator: "; ")
        }
        #expect(cycles.isEmpty, "request cycles: \(described)")
    }

    @Test("Alerts asks the watchlist service nothing, nor subscription who prefers an airport, and a batch's users' settings only for users no event told it of: it keeps them from their events (issue #64)")
    func alertsKeepsItsAudience() throws {
        let edges = try Self.edges(in: Self.sources)
        #expect(edges["alerts"]?["watchlist"] == nil, "\(edges["alerts"]?["watchlist"]?.sorted() ?? [])")
        let asksSubscription = edges["alerts"]?["subscription"] ?? []
        #expect(!asksSubscription.contains { $0.hasPrefix("PreferredAirportUsersRequest") }, "\(asksSubscription.sorted())")
        // GetUsers only from the fallback for users alerts has not heard of (a node that joined after they were
        // created; AlertsService.askSubscription(about:)), never from the decision path itself.
        #expect(asksSubscription.filter { $0.hasPrefix("GetUsersRequest") }.allSatisfy { $0.hasSuffix("Intake/AlertsService+Recipients.swift)") }, "\(asksSubscription.sorted())")
        // Still asked (whether a user exists, by the requests a pause or mute makes): the check reads the call sites it should.
        #expect(asksSubscription.contains { $0.hasPrefix("GetUserRequest ") && $0.contains("Requests/") }, "\(asksSubscription.sorted())")
    }

    @Test("The check fails when a cycle is put back: search asking the watchlist service for watched routes, as it once did")
    func catchesACycle() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("request-graph-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let messages = root.appendingPathComponent("FareLensMessages")
        try FileManager.default.createDirectory(at: messages, withIntermediateDirectories: true)
        for file in ["SearchMessages+Bus.swift", "WatchlistMessages+Bus.swift"] {
            try FileManager.default.copyItem(at: Self.sources.appendingPathComponent("FareLensMessages/\(file)"), to: messages.appendingPathComponent(file))
        }
        let write = { (service: String, text: String) in
            let directory = root.appendingPathComponent(service)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try text.write(to: directory.appendingPathComponent("Asks.swift"), atomically: true, encoding: .utf8)
        }
        try write("WatchlistService", "let search = SearchFlightsRequest()\n")
        try write("SearchService", "/// Once asked with `WatchedRoutesRequest`; now kept from events.\n")
        #expect(Self.cycles(in: try Self.edges(in: root)).isEmpty)
        try write("SearchService", "var request = WatchedRoutesRequest()\n")
        #expect(Self.cycles(in: try Self.edges(in: root)) == [["search", "watchlist", "search"]])
        // Through a third service too.
        try write("SearchService", "let user = GetUserRequest.user(id, on: bus)\n")
        try FileManager.default.copyItem(
            at: Self.sources.appendingPathComponent("FareLensMessages/SubscriptionMessages+Bus.swift"),
            to: messages.appendingPathComponent("SubscriptionMessages+Bus.swift"))
        try write("SubscriptionService", "let watched = WatchedRoutesRequest()\n")
        #expect(Self.cycles(in: try Self.edges(in: root)) == [["search", "subscription", "watchlist", "search"]])
    }
}
