import ArgumentParser
import Foundation

/// Options every command shares: where the node is and how long to wait.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: "The node's Unix socket. [env: FARELENS_SOCKET or FARELENS_BRIDGE_SOCKET; default ./data/farelens.sock]")
    var socket: String?

    @Option(name: .long, help: "Give up after this many milliseconds.")
    var timeoutMs: Int = 5000

    @Flag(name: .long, help: "Print JSON instead of a table.")
    var json = false

    /// The socket path after defaults.
    var socketPath: String { namedSocket ?? "./data/farelens.sock" }

    /// Whether no option or variable named the socket (``socketPath`` is
    /// then `./data/farelens.sock`, relative to where the command runs).
    var socketIsDefault: Bool { namedSocket == nil }

    /// The socket `--socket` or the environment names, if either does.
    private var namedSocket: String? {
        let environment = ProcessInfo.processInfo.environment
        // FARELENS_BRIDGE_SOCKET is the name used before FARELENS_SOCKET; still honoured.
        return socket ?? environment["FARELENS_SOCKET"] ?? environment["FARELENS_BRIDGE_SOCKET"]
    }

    func validate() throws {
        guard timeoutMs > 0 else { throw ValidationError("--timeout-ms must be a positive number of milliseconds") }
        guard timeoutMs <= Self.maximumTimeoutMs else { throw ValidationError("--timeout-ms must be at most \(Self.maximumTimeoutMs) (a day), not \(timeoutMs)") }
    }

    /// A day: longer budgets overflowed the watchdog's arithmetic (a crash, not an error).
    static let maximumTimeoutMs = 86_400_000
}
