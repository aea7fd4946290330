import ArgumentParser
import FareLensRuntime
import FareLensServiceKit
import Foundation

/// `farelens serve --demo`: the product in a minute, on simulated time
/// (docs/demo.md).
struct DemoOptions: ParsableArguments {
    @Flag(name: .long, help: "Run the demo: seed four travellers and fast-forward a simulated clock (data in ./data/demo, wiped at each start).")
    var demo = false

    // .unconditional: "-3" is its value (refused by validate, naming the option), not an unknown flag ("Missing value").
    @Option(name: .long, parsing: .unconditional, help: "Demo: simulated hours per real second. [default 8: a simulated week in 21 s]")
    var demoSpeed: Double = 8

    @Option(name: .long, help: "Demo: the Unix time (seconds) the simulated clock starts from; give every process of a split demo the hub's value (its ready line prints it).")
    var demoEpoch: Double?

    @Option(name: .long, parsing: .unconditional, help: "Demo: stop the simulated clock after this many simulated days (the mesh then falls still). [default: never]")
    var demoDays: Int?

    @Option(name: .long, help: "Demo: fast (the clock runs at --demo-speed) or stepped (it stands still and moves only with `farelensctl clock advance`, for runs whose answers must not depend on the machine's speed). [default: fast]")
    var demoClock: DemoClockKind = .fast

    @Option(name: .long, help: "Demo, stepped clock: the Unix time (seconds) it stands at when the process starts (a restarted spoke joins at the mesh's time, which `farelensctl clock` shows). [default: the epoch]")
    var demoClockAt: Double?

    func validate() throws {
        if let demoDays, demoDays < 1 || demoDays > 3_650 { throw ValidationError("--demo-days must be 1 to 3650 simulated days, not \(demoDays)") }
        guard demoSpeed >= 1.0 / 3600, demoSpeed <= 1000 else { throw ValidationError("--demo-speed must be simulated hours per real second, from 0.0003 to 1000, not \(demoSpeed)") }
        if !demo && (demoEpoch != nil || demoDays != nil || demoClock != .fast || demoClockAt != nil) {
            throw ValidationError("--demo-epoch, --demo-days, --demo-clock and --demo-clock-at need --demo")
        }
        if demoClock == .stepped && demoDays != nil { throw ValidationError("--demo-days stops a fast clock; a stepped clock stops by itself between steps") }
        if demoClockAt != nil && demoClock != .stepped { throw ValidationError("--demo-clock-at needs --demo-clock stepped") }
    }

    /// The demo's clock: fast-forwarded from `epoch` (Unix seconds), or stepped, standing at `--demo-clock-at` or the epoch.
    func clock(epoch: Double) -> any WallClock {
        switch demoClock {
        case .fast: fastClock(epoch: epoch)
        case .stepped: SteppedClock(start: Date(timeIntervalSince1970: max(demoClockAt ?? epoch, epoch)))
        }
    }

    /// The fast-forwarded clock: `demoSpeed` hours per second from `epoch` (Unix seconds).
    func fastClock(epoch: Double) -> FastForwardClock {
        let start = Date(timeIntervalSince1970: epoch)
        return FastForwardClock(epoch: start, rate: demoSpeed * 3600, end: demoDays.map { start.addingTimeInterval(Double($0) * 86_400) })
    }
}

/// How the demo's simulated time moves.
enum DemoClockKind: String, ExpressibleByArgument, CaseIterable, Sendable {
    /// `--demo-speed` simulated hours per real second.
    case fast
    /// Still until `farelensctl clock advance` moves it.
    case stepped
}

/// What the demo changes in a node's configuration and data directory.
enum DemoSetup {
    /// The demo's data directory unless `--data-dir` names another.
    static let dataDirectory = "./data/demo"
    /// The demo listens where `farelensctl` looks by default.
    static let socket = "./data/farelens.sock"
    /// Marks a directory the demo made (and may wipe).
    static let marker = "FARELENS-DEMO"

    /// Configuration the demo sets unless a flag, the environment or the file
    /// sets it: its data directory and socket, and a market swept every
    /// simulated 6 hours from one second after start (on a stepped clock at
    /// its first step: a sweep waits for the clock to move).
    static func defaults(_ clock: DemoClockKind) -> [String: String] {
        [
            "dataDir": dataDirectory,
            "bridge.socket": socket,
            "search.sweep.intervalSeconds": "21600",
            "search.sweep.initialDelaySeconds": clock == .stepped ? "0" : "1",
        ]
    }

    /// Wipes a previous demo's data directory, so each demo starts from
    /// nothing, but keeps it when the process restarts into the same demo
    /// (the same epoch: a restarted spoke of a split demo); refuses a
    /// non-empty directory the demo did not make (it may hold real data).
    static func prepare(dataDirectory path: String, epoch: Int64) throws {
        let files = FileManager.default
        let markerPath = (path as NSString).appendingPathComponent(marker)
        let stamp = Data("Made by farelens serve --demo; wiped when a new demo starts.\nepoch=\(epoch)\n".utf8)
        if let contents = try? files.contentsOfDirectory(atPath: path), !contents.isEmpty {
            guard contents.contains(marker) else { throw DemoError.notADemoDirectory(path) }
            if files.contents(atPath: markerPath) == stamp { return }
            for name in contents where name != marker {
                try files.removeItem(atPath: (path as NSString).appendingPathComponent(name))
            }
        } else {
            try files.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        _ = files.createFile(atPath: markerPath, contents: stamp)
    }
}

/// What can stop a demo from starting or seeding.
struct DemoError: Error, CustomStringConvertible {
    /// `not-a-demo-directory`, `seeding-failed`.
    let code: String
    let message: String
    var description: String { "[\(code)] \(message)" }

    static func notADemoDirectory(_ path: String) -> DemoError {
        DemoError(code: "not-a-demo-directory", message: "\(path) holds data the demo did not make; give --data-dir a new or empty directory")
    }

    static func seedingFailed(_ what: String, _ error: any Error) -> DemoError {
        DemoError(code: "seeding-failed", message: "\(what): \(error)")
    }
}
