import ArgumentParser
import FareLensRuntime
import Foundation

/// `farelens serve --demo`: the product in a minute, on simulated time
/// (docs/demo.md).
struct DemoOptions: ParsableArguments {
    @Flag(name: .long, help: "Run the demo: seed four travellers and fast-forward a simulated clock (data in ./data/demo, wiped at each start).")
    var demo = false

    @Option(name: .long, help: "Demo: simulated hours per real second. [default 8: a simulated week in 21 s]")
    var demoSpeed: Double = 8

    @Option(name: .long, help: "Demo: the Unix time (seconds) the simulated clock starts from; give every process of a split demo the hub's value (its ready line prints it).")
    var demoEpoch: Double?

    func validate() throws {
        guard demoSpeed >= 1.0 / 3600, demoSpeed <= 1000 else { throw ValidationError("--demo-speed must be simulated hours per real second, from 0.0003 to 1000, not \(demoSpeed)") }
        if !demo && (demoEpoch != nil) { throw ValidationError("--demo-epoch needs --demo") }
    }

    /// The fast-forwarded clock: `demoSpeed` hours per second from `epoch` (Unix seconds).
    func clock(epoch: Double) -> FastForwardClock {
        FastForwardClock(epoch: Date(timeIntervalSince1970: epoch), rate: demoSpeed * 3600)
    }
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
    /// simulated 6 hours from one second after start.
    static let defaults: [String: String] = [
        "dataDir": dataDirectory,
        "bridge.socket": socket,
        "search.sweep.intervalSeconds": "21600",
        "search.sweep.initialDelaySeconds": "1",
    ]

    /// Wipes a previous demo's data directory, so each demo starts from
    /// nothing; refuses a non-empty directory the demo did not make (it may
    /// hold real data).
    static func prepare(dataDirectory path: String) throws {
        let files = FileManager.default
        if let contents = try? files.contentsOfDirectory(atPath: path), !contents.isEmpty {
            guard contents.contains(marker) else { throw DemoError.notADemoDirectory(path) }
            for name in contents where name != marker {
                try files.removeItem(atPath: (path as NSString).appendingPathComponent(name))
            }
        } else {
            try files.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
        _ = files.createFile(atPath: (path as NSString).appendingPathComponent(marker), contents: Data("Made by farelens serve --demo; wiped at each demo start.\n".utf8))
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
