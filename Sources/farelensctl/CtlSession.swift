import FareLensBus
import FareLensWire
import Foundation

/// The bus of one admin session, for commands that send more than one
/// request: a second session from the same process can be refused while the
/// hub still holds the first (both are named `farelensctl-<pid>`).
struct CtlSession: Sendable {
    let bus: MessageBus
    let budget: Duration

    /// One request; a bus error becomes a ``CtlFailure`` naming the address, as `CtlRun.request` words it.
    func request<R: BusRequest>(_ request: R) async throws -> R.Response where R.Response: Sendable {
        do {
            return try await bus.request(request, timeout: budget)
        } catch {
            throw CtlFailure(error, address: "\(R.address)", timeoutMs: budget.milliseconds)
        }
    }
}

extension CtlRun {
    /// Runs `body` in one admin session; any failure becomes
    /// `farelensctl: error: …` and exit status 1, as with `request`.
    static func session<T: Sendable>(_ options: ConnectionOptions, _ body: @escaping @Sendable (CtlSession) async throws -> T) async throws -> T {
        armWatchdog(options)
        do {
            return try await AdminSession.run(options) { bus, budget in
                try await body(CtlSession(bus: bus, budget: budget))
            }
        } catch {
            fail(CtlFailure(error, timeoutMs: options.timeoutMs))
        }
    }
}

extension Duration {
    /// Whole milliseconds: the `--timeout-ms` a session's budget was made from.
    var milliseconds: Int { Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000) }
}
