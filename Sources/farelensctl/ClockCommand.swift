import ArgumentParser
import FareLensBus
import FareLensMessages
import Foundation

/// `farelensctl clock [advance DURATION [--wait]]`: every node's clock, and
/// moving a stepped demo clock.
struct ClockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clock",
        abstract: "Show every node's clock, or move a stepped demo clock forward.",
        discussion: """
            A node started with `farelens serve --demo --demo-clock stepped` stands still until this moves \
            it; a run driven this way gives the same answers however fast the machine is (docs/demo.md).

            Example: farelensctl clock advance 6h --wait --timeout-ms 60000
            """,
        subcommands: [ShowClock.self, AdvanceClock.self, WaitStill.self],
        defaultSubcommand: ShowClock.self
    )
}

/// `farelensctl clock show`.
struct ShowClock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Every node's clock: its kind (system, fast-forward, stepped) and time.",
        discussion: """
            --json prints {"nodes": [{"node", "kind", "now_unix_ms", "now"}]}.

            Example: farelensctl clock show --json
            """
    )

    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let clocks = try await CtlRun.session(options) { session in try await NodeClocks.read(session, advancingTo: 0) }
        try NodeClocks.print(clocks, json: options.json, stillAfter: nil)
    }
}

/// `farelensctl clock advance DURATION`.
struct AdvanceClock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advance",
        abstract: "Move every node's stepped clock forward by DURATION, to one instant for all, stopping at each due sweep and check.",
        discussion: """
            DURATION is a whole number with a unit: s, m, h or d (90s, 30m, 6h, 1d). The target is the \
            latest node's time plus DURATION, so a mesh whose clocks differ is brought to one instant. A \
            node whose clock is not stepped refuses with clock-not-stepped.

            On the way the clocks stop at each instant at which a market sweep or a user's watchlist checks \
            fall due (the nodes say when), in order, and each time the command waits until that work has run \
            and the mesh is still before going on: so 1d runs every sweep and check that four steps of 6h run \
            (a single jump ran each once, at the end). Work on a tick of its own (trials, digests, deliveries) \
            runs at the first stop after it falls due. --at-once jumps straight to the target instead.

            With --wait the command also returns only once the mesh has fallen still after the last stop \
            (what the step made due has run, every node connected, nothing in flight or queued, no durable \
            backlog, and no event published for --still-ms), within --timeout-ms (each wait), or fails with \
            mesh-not-still. --json prints {"nodes": [...], "still_after_ms", "stops"}.

            Example: farelensctl clock advance 6h --wait --timeout-ms 60000
            """
    )

    @Argument(help: "How far: 90s, 30m, 6h, 1d.") var duration: String
    @Flag(name: .long, help: "Wait until the mesh has fallen still.") var wait = false
    @Flag(name: .customLong("at-once"), help: "Jump straight to the target: periodic work due on the way runs once, at the end.") var atOnce = false
    @OptionGroup var stillness: StillnessOptions
    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        guard ClockStep.seconds(duration) != nil else {
            throw ValidationError("invalid-duration: '\(duration)' is not a duration; give a whole number and s, m, h or d (6h)")
        }
    }

    func run() async throws {
        guard let seconds = ClockStep.seconds(duration) else { CtlRun.fail(.usage("invalid-duration: '\(duration)' is not a duration")) }
        let step = Int64(seconds) * 1000
        let wait = self.wait, still = stillness.still, atOnce = self.atOnce
        let (clocks, stillAfter, stops) = try await CtlRun.session(options) { session in
            let before = try await NodeClocks.read(session, advancingTo: 0)
            let target = (before.map(\.nowUnixMs).max() ?? 0) + step
            let stops: Int
            if atOnce {
                _ = try await NodeClocks.read(session, advancingTo: target)
                stops = 1
            } else {
                stops = try await NodeClockStepping.advance(
                    to: target, read: { try await NodeClocks.read(session, advancingTo: 0) },
                    move: { _ = try await NodeClocks.read(session, advancingTo: $0) },
                    settle: { _ = try await NodeClocks.settle(session, still: still) }
                ).count
            }
            let after = try await NodeClocks.read(session, advancingTo: 0)
            guard wait else { return (after, Duration?.none, stops) }
            let stillAfter = try await NodeClocks.settle(session, still: still)
            return (try await NodeClocks.read(session, advancingTo: 0), stillAfter, stops)
        }
        try NodeClocks.print(clocks, json: options.json, stillAfter: stillAfter, stops: stops)
    }
}

/// `farelensctl clock wait`.
struct WaitStill: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wait",
        abstract: "Wait until the mesh has fallen still, without moving the clock.",
        discussion: """
            Still: what a step made due has run, every node connected, nothing in flight or queued, no durable backlog, and no event \
            published for --still-ms; within --timeout-ms, or the command fails with mesh-not-still \
            (saying what was still going on). For a script that restarted a node between two steps. \
            --json prints {"nodes": [...], "still_after_ms"}.

            Example: farelensctl clock wait --timeout-ms 60000
            """
    )

    @OptionGroup var stillness: StillnessOptions
    @OptionGroup var options: ConnectionOptions

    func run() async throws {
        let still = stillness.still
        let (clocks, stillAfter) = try await CtlRun.session(options) { session in
            let after = try await NodeClocks.settle(session, still: still)
            return (try await NodeClocks.read(session, advancingTo: 0), after)
        }
        try NodeClocks.print(clocks, json: options.json, stillAfter: stillAfter)
    }
}

/// `--still-ms`, shared by `clock advance --wait` and `clock wait`.
struct StillnessOptions: ParsableArguments {
    @Option(name: .long, help: "How long nothing must happen for the mesh to count as still, in milliseconds (with advance: only with --wait).")
    var stillMs = 400

    func validate() throws {
        guard stillMs >= 100, stillMs <= 60_000 else { throw ValidationError("--still-ms must be 100 to 60000, not \(stillMs)") }
    }

    var still: Duration { .milliseconds(stillMs) }
}

/// Durations as the clock command reads them.
enum ClockStep {
    /// Seconds in "90s", "30m", "6h", "1d"; nil for anything else (or 0).
    static func seconds(_ text: String) -> Int? {
        guard let unit = text.last, let count = Int(text.dropLast()), count > 0 else { return nil }
        let scale = switch unit {
        case "s": 1
        case "m": 60
        case "h": 3_600
        case "d": 86_400
        default: 0
        }
        let (seconds, overflow) = count.multipliedReportingOverflow(by: scale)
        return scale == 0 || overflow || seconds > 366 * 86_400 ? nil : seconds
    }
}

/// Reading (and moving) the clocks of every connected node.
enum NodeClocks {
    /// Each connected node's clock, after moving stepped clocks to `target` (0: not moved).
    static func read(_ session: CtlSession, advancingTo target: Int64) async throws -> [NodeClockResponse] {
        var clocks: [NodeClockResponse] = []
        for name in try await NodeTargets.resolve(nil, in: session) {
            var request = NodeClockRequest()
            request.advanceToUnixMs = target
            clocks.append(try await session.request(request, node: name))
        }
        return clocks
    }

    /// Waits until no node has work a step made due that has not run yet
    /// (`NodeClockResponse.overdue`, read every 50 ms), then until the mesh
    /// has fallen still (``MeshStillness``); each within the session's budget.
    ///
    /// - Returns: how long after the call the mesh was first seen still.
    /// - Throws: ``CtlFailure`` `mesh-not-still`, naming the work still due.
    static func settle(_ session: CtlSession, still: Duration) async throws -> Duration {
        let start = ContinuousClock.now
        while true {
            let overdue = try await read(session, advancingTo: 0).flatMap { clock in clock.overdue.map { "\(clock.nodeName): \($0)" } }
            if overdue.isEmpty { break }
            guard ContinuousClock.now - start < session.budget else {
                throw CtlFailure(code: "mesh-not-still", "after \(session.budget) work the step made due had not run: \(overdue.joined(separator: ", "))")
            }
            try await Task.sleep(for: .milliseconds(50))  // safe: the pause between two readings, bounded by the budget above
        }
        return (ContinuousClock.now - start) + (try await MeshStillness.wait(session, still: still))
    }

    static func print(_ clocks: [NodeClockResponse], json: Bool, stillAfter: Duration?, stops: Int? = nil) throws {
        let stillMs = stillAfter.map { Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
        if json {
            let nodes = clocks.map { ClockJSON(node: $0.nodeName, kind: $0.kind, nowUnixMs: $0.nowUnixMs, now: stamp($0.nowUnixMs)) }
            try CtlRun.printJSON(ClockReportJSON(nodes: nodes, stillAfterMs: stillMs, stops: stops))
            return
        }
        var table = TextTable("NODE", "CLOCK", "NOW")
        for clock in clocks { table.add(clock.nodeName, clock.kind, stamp(clock.nowUnixMs)) }
        Swift.print(table.rendered)
        if let stops, stops > 1 { Swift.print("stopped at \(stops) instants on the way, each due sweep or check in turn") }
        if let stillMs { Swift.print("the mesh fell still \(stillMs) ms after the wait began") }
    }

    static func stamp(_ unixMs: Int64) -> String {
        let date = Date(timeIntervalSince1970: Double(unixMs) / 1000)
        return date.formatted(Date.ISO8601FormatStyle().year().month().day().time(includingFractionalSeconds: false).dateTimeSeparator(.space)) + " UTC"
    }
}

struct ClockJSON: Encodable, Sendable {
    let node: String
    let kind: String
    let nowUnixMs: Int64
    let now: String
}

struct ClockReportJSON: Encodable, Sendable {
    let nodes: [ClockJSON]
    let stillAfterMs: Int?
    /// `advance`: the instants the clocks stopped at, the target included.
    let stops: Int?
}
