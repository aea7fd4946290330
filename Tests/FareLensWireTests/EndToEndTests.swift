import FareLensTesting
import Foundation
import Testing

/// The whole product, driven only through the real executables: the demo's
/// market on a fast-forwarded clock that stops after 9 simulated days, the
/// demo's cast plus a user created with `farelensctl`, then the same
/// scripted session read back — in one process; split in two with the
/// analytics spoke killed with SIGKILL mid-run and restarted (alerts' durable
/// decisions wait for it); and split three ways with the alerts+analytics
/// spoke killed mid-run and restarted.
@Suite("End to end, three shapes", .serialized)
struct EndToEndTests {
    enum Shape: String, CaseIterable, CustomTestStringConvertible {
        case oneProcess, twoProcessesWithKill, threeProcessesWithKill
        var testDescription: String { rawValue }
    }

    static let speed = "24"  // simulated hours per real second
    static let days = 9

    @Test("the same session gives the same users and watchlists in every shape; deals have reasons; every alert decision is recorded once and counted once by analytics", arguments: Shape.allCases)
    func session(shape: Shape) async throws {
        let directory = temporarySocketPath().replacingOccurrences(of: "/bus.sock", with: "")
        let socket = directory + "/hub.sock"
        var processes: [String: ChildProcess] = [:]
        defer { processes.values.forEach { $0.kill() } }
        // A lighter market than the demo's own (12 routes, two departure dates): the same story, less CPU.
        let environment = [
            "FARELENS_SEARCH_SWEEP_INTERVAL_SECONDS": "21600", "FARELENS_SEARCH_SWEEP_ROUTES": "12", "FARELENS_SEARCH_SWEEP_DAYS_AHEAD": "10,30",
        ]
        func demo(_ name: String, services: String, epoch: String?) -> [String] {
            ["serve", "--demo", "--demo-speed", Self.speed, "--demo-days", "\(Self.days)", "--services", services, "--node-name", name,
             "--data-dir", directory + "/" + name, "--log-level", "error"]
                + (epoch.map { ["--demo-epoch", $0, "--connect", socket] } ?? ["--listen", socket])
        }
        let layout: [(name: String, services: String)] = switch shape {
        case .oneProcess: [("hub", "all")]
        case .twoProcessesWithKill: [("hub", "search,scoring,watchlist,subscription,alerts"), ("analytics", "analytics")]
        case .threeProcessesWithKill: [("hub", "search,scoring"), ("accounts", "watchlist,subscription"), ("alerts", "alerts,analytics")]
        }
        let hub = try ChildProcess.start(Binaries.farelens, demo("hub", services: layout[0].services, epoch: nil), environment: environment)
        processes["hub"] = hub
        try await hub.waitForOutput(containing: "farelens ready")
        let epoch = String(try #require(hub.output.get().firstMatch(of: /demo-epoch=([0-9]+)/)?.1))
        for spoke in layout.dropFirst() {
            processes[spoke.name] = try ChildProcess.start(Binaries.farelens, demo(spoke.name, services: spoke.services, epoch: epoch), environment: environment)
        }
        try await hub.waitForOutput(containing: "demo: Sam (Sydney, Free")
        let session = EndToEndSession(socket: socket)
        _ = try await session.createOwnUser()

        var beforeKill: Set<String> = []
        if let victim = layout.dropFirst().last, shape != .oneProcess {
            // Mid-run: after a few simulated days of decisions, a crash, then a restart into the same demo.
            try await hub.waitForOutput(containing: "demo: day 4,")
            beforeKill = Set(try await session.read().alertIDs)
            try #require(processes[victim.name]).kill()
            let restarted = try ChildProcess.start(Binaries.farelens, demo(victim.name, services: victim.services, epoch: epoch), environment: environment)
            processes[victim.name] = restarted
            try await restarted.waitForOutput(containing: "farelens ready")
        }
        try await hub.waitForOutput(containing: "demo: the simulated clock stopped")
        let answers: EndToEndSession.Answers
        do {
            answers = try await session.readWhenStill()
        } catch {
            // What the mesh looked like when it gave up, for whoever reads the failure.
            let status = (try? await session.ctl(["status"])) ?? "(no status)"
            let outputs = processes.map { name, process in "--- \(name):\n\(process.output.get().suffix(3_000))" }.sorted().joined(separator: "\n")
            throw SessionFailed(command: "(end to end, \(shape))", stderr: "\(error)\nstatus: \(status)\n\(outputs)")
        }

        #expect(answers.stable == Self.expectedStable, "users and watchlists, whatever the shape")
        #expect(!answers.deals.isEmpty, "the Pro user's feed has deals after \(Self.days) simulated days")
        #expect(answers.deals.allSatisfy { $0.simulated && !$0.score.reasons.isEmpty && $0.score.score >= 60 })
        #expect(zip(answers.deals, answers.deals.dropFirst()).allSatisfy { $0.queue_score >= $1.queue_score })
        #expect(answers.decisions["sent", default: 0] > 0, "alerts were sent: \(answers.decisions)")
        #expect(answers.reasonsMissing == 0)
        #expect(Set(answers.alertIDs).count == answers.alertIDs.count, "no decision recorded twice")
        #expect(beforeKill.isSubset(of: Set(answers.alertIDs)), "every decision recorded before the crash is still there")
        #expect(shape == .oneProcess || !beforeKill.isEmpty, "the crash came after decisions were recorded")
        // Every decision reached analytics exactly once (over the socket in the split shapes, across the crash in the third).
        var reported = answers.reported
        let total = reported.removeValue(forKey: "total")
        #expect(total == answers.alertIDs.count)
        #expect(reported.filter { $0.value > 0 } == answers.decisions, "analytics' alerts report by decision equals alerts' own records")
    }

    /// The demo's cast and the session's own user, as `users list` and `watchlists list` show them.
    static let expectedStable = EndToEndSession.StableAnswers(
        users: [
            "eve@example.com pro Europe/Lisbon",
            "maya@example.com pro America/New_York",
            "oliver@example.com free Europe/London",
            "priya@example.com trial Asia/Kolkata",
            "sam@example.com free Australia/Sydney",
        ],
        watchlists: [
            "eve@example.com LIS→BCN both any 3–7 d",
            "maya@example.com NYC→CHI both any 3–7 d",
            "maya@example.com NYC→ORL both any 5–10 d",
            "oliver@example.com LON→BCN both any 2–5 d",
            "oliver@example.com LON→EDI both one-way any",
            "priya@example.com CCU→MAA both any 4–8 d",
            "sam@example.com SYD→MEL both one-way any",
            "sam@example.com SYD→OOL both any 3–6 d",
        ]
    )
}
