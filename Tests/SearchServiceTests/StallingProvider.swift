import FareLensMessages
import FareLensTesting
import SearchService

/// A live provider that never answers on its own: each call waits until the
/// test releases it or the calling task is cancelled, and records which.
final class StallingProvider: FareProvider, Sendable {
    let name = "amadeus"
    let isLive = true
    /// Calls made, and calls that saw their task cancelled.
    let calls = Locked(0)
    let cancelled = Locked(0)
    /// The deadline each call was given.
    let deadlines = Locked<[ContinuousClock.Instant?]>([])
    private let release = Gate()

    func offers(for query: FareQuery, deadline: ContinuousClock.Instant?) async throws(ProviderError) -> [FlightOffer] {
        calls.update { $0 += 1 }
        deadlines.update { $0.append(deadline) }
        // Ends on release or on cancellation (which opens the gate for this test's only call).
        await withTaskCancellationHandler {
            await release.wait()
        } onCancel: {
            cancelled.update { $0 += 1 }
            release.open()
        }
        if Task.isCancelled { throw .transport(name, "request cancelled") }
        return [ScriptedProvider.offer(query, flight: "TP201", price: 10_000, provider: name)]
    }

    /// Lets every waiting and later call answer.
    func answer() { release.open() }
}
