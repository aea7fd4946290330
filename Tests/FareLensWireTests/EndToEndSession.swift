import FareLensTesting
import Foundation
import Testing

/// The scripted `farelensctl` session the end-to-end test runs against every
/// shape of the mesh, and what it reads back.
struct EndToEndSession {
    let socket: String

    /// What does not depend on timing: who the users are and what they watch.
    struct StableAnswers: Equatable, CustomStringConvertible {
        var users: [String] = []
        var watchlists: [String] = []
        var description: String { (users + watchlists).joined(separator: "\n") }
    }

    /// What the session read, once the mesh had fallen still.
    struct Answers {
        var stable = StableAnswers()
        /// Alert decisions by decision name (lower case), over every user, from alerts.
        var decisions: [String: Int] = [:]
        var alertIDs: [String] = []
        var reasonsMissing = 0
        /// The alerts report of analytics, by decision name; "total" for its total row.
        var reported: [String: Int] = [:]
        var deals: [Deal] = []
        /// Every decision as "email decision origin→destination price instant", sorted. Not its kind: of two
        /// candidates for one route and price at one instant (a price drop and an exceptional deal), which
        /// one is sent and which deduped follows their arrival order, which the mesh's shape may change.
        var alerts: [String] = []
        /// `history NYC CHI --month 2026-12 --json`, as printed.
        var history = ""
        var historyDays = 0
    }

    /// A deal as `deals --json` prints it (less the watchlist id it matched: ids are random per run).
    struct Deal: Decodable, Equatable {
        struct Score: Decodable, Equatable {
            let score: Int
            let reasons: [String]
        }
        struct Price: Decodable, Equatable {
            let currency: String
            let minor_units: Int64
        }
        let deal_id: String
        let origin: String
        let destination: String
        let departure_date: String
        let carrier: String
        let price: Price
        let observed_at: String
        let simulated: Bool
        let score: Score
        let queue_score: Double
    }

    func ctl(_ arguments: [String], limit: Duration = .seconds(20)) async throws -> String {
        let result = try await ChildProcess.run(Binaries.farelensctl, ["--socket", socket, "--json"] + arguments, limit: limit)
        guard result.status == 0 else { throw SessionFailed(command: arguments.joined(separator: " "), stderr: result.stderr) }
        return result.stdout
    }

    func json(_ arguments: [String]) async throws -> [String: Any] {
        let text = try await ctl(arguments)
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw SessionFailed(command: arguments.joined(separator: " "), stderr: "not a JSON object: \(text)")
        }
        return object
    }

    /// The part a person types: a user of their own and a watchlist, beside the demo's cast.
    func createOwnUser() async throws -> String {
        let user = try await json(["users", "create", "--email", "eve@example.com", "--time-zone", "Europe/Lisbon", "--home-airport", "LIS", "--preferred", "LIS=1"])
        let id = try #require(user["id"] as? String)
        _ = try await ctl(["users", "tier", id, "pro-monthly"])
        _ = try await ctl(["watchlists", "add", "--user", id, "LIS", "BCN", "--any-dates", "3-7", "--mode", "both"])
        return id
    }

    /// Moves the mesh's stepped clock `hours` forward in one jump (`--at-once`: the run sweeps once
    /// per step by design, and the kill lands in the middle of a step); with `wait`, returns once
    /// the mesh has fallen still. Stopping at each due check (the default) is
    /// SteppedAdvanceTests' subject, and would make each shape's run minutes longer.
    func advance(hours: Int, wait: Bool) async throws {
        _ = try await ctl(["--timeout-ms", "40000", "clock", "advance", "\(hours)h", "--at-once"] + (wait ? ["--wait"] : []), limit: .seconds(60))
    }

    /// Returns once the mesh has fallen still (`clock wait`).
    func waitStill() async throws {
        _ = try await ctl(["--timeout-ms", "40000", "clock", "wait"], limit: .seconds(60))
    }

    /// Reads everything back.
    func read() async throws -> Answers {
        var answers = Answers()
        let users = try #require(try await json(["users", "list"])["users"] as? [[String: Any]])
        var ids: [String: String] = [:]
        for user in users {
            let email = user["email"] as? String ?? "?"
            ids[email] = user["id"] as? String
            answers.stable.users.append("\(email) \(user["tier"] as? String ?? "?") \(user["time_zone"] as? String ?? "?")")
        }
        answers.stable.users.sort()
        for (email, id) in ids.sorted(by: { $0.key < $1.key }) {
            let watchlists = try #require(try await json(["watchlists", "list", "--user", id])["watchlists"] as? [[String: Any]])
            for watchlist in watchlists {
                answers.stable.watchlists.append("\(email) \(watchlist["origin"] as? String ?? "?")→\(watchlist["destination"] as? String ?? "?") \(watchlist["mode"] as? String ?? "?") \(watchlist["dates"] as? String ?? "?")")
            }
            // Protobuf's JSON leaves out an empty list: no "alerts" key is no alerts.
            let alerts = try await json(["alerts", "history", "--user", id, "--limit", "500"])["alerts"] as? [[String: Any]] ?? []
            for alert in alerts {
                let decision = (alert["decision"] as? String ?? "?").lowercased()
                let price = (alert["price"] as? [String: Any]).map { "\($0["minor_units"] ?? "?") \($0["currency"] ?? "?")" } ?? "-"
                answers.alerts.append(
                    "\(email) \(decision) \(alert["origin"] ?? "?")→\(alert["destination"] ?? "?") \(price) at \(alert["decided_at_unix_ms"] ?? "?")")
                answers.decisions[decision, default: 0] += 1
                answers.alertIDs.append(alert["alert_id"] as? String ?? "")
                if (alert["reason"] as? String ?? "").isEmpty { answers.reasonsMissing += 1 }
            }
        }
        answers.stable.watchlists.sort()
        answers.alerts.sort()
        answers.history = try await ctl(["history", "NYC", "CHI", "--month", "2026-12"])
        let history = try JSONSerialization.jsonObject(with: Data(answers.history.utf8)) as? [String: Any]
        answers.historyDays = history?["days_of_history"] as? Int ?? 0
        for row in try #require(try await json(["analytics", "report", "alerts"])["rows"] as? [[String: Any]]) {
            let name = (row["total"] as? Bool ?? false) ? "total" : (row["dimension"] as? String ?? "?")
            answers.reported[name, default: 0] += row["count"] as? Int ?? 0
        }
        if let maya = ids["maya@example.com"] {
            struct Feed: Decodable { let deals: [Deal] }
            answers.deals = try JSONDecoder().decode(Feed.self, from: Data(try await ctl(["deals", "--user", maya]).utf8)).deals
        }
        return answers
    }
}

struct SessionFailed: Error, CustomStringConvertible {
    let command: String
    let stderr: String
    var description: String { "farelensctl \(command) failed: \(stderr)" }
}
