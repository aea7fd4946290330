import FareLensBus
import Logging

/// Waiting out a failure the service cannot decide without: subscription
/// or search's airport directory away, the database refusing writes.
extension AlertsService {
    /// Whether a service (subscription, search's directory) refused a
    /// request for what it says, rather than failing to answer it: not
    /// transient (``BusError/Kind/isTransient``) and not its own storage
    /// failing, which may recover.
    static func isRefusal(_ error: BusError) -> Bool {
        !error.kind.isTransient && error.remoteCode != "storage"
    }

    /// `attempt`'s result, tried again every second of the transport clock while it fails —
    /// `message` logged at `level` at the first and every tenth failure —
    /// unless `isFinal` says the failure is the answer itself (trying again
    /// would get it again): then that failure. Nil once the task is
    /// cancelled, and a failure that comes from the cancellation (a stop)
    /// is not logged: the caller decides nothing and its events stay
    /// unacknowledged.
    nonisolated(nonsending) func retryingEverySecond<T, Failure: Error>(
        _ message: Logger.Message, level: Logger.Level, metadata: Logger.Metadata,
        isFinal: (Failure) -> Bool = { _ in false },
        _ attempt: () async throws(Failure) -> T
    ) async -> Result<T, Failure>? {
        var failures = 0
        while !Task.isCancelled {
            do throws(Failure) {
                return .success(try await attempt())
            } catch {
                if Task.isCancelled { return nil }
                if isFinal(error) { return .failure(error) }
                if failures % 10 == 0 {
                    logger.log(level: level, message, metadata: metadata.merging(["attempt": "\(failures + 1)", "error": "\(error)"]) { $1 })
                }
                failures += 1
                try? await transport.sleep(for: .seconds(1))  // safe: real time (the transport clock): waiting for the failure to pass; ends on cancellation
            }
        }
        return nil
    }
}
