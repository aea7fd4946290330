import FareLensServiceKit
import Foundation

/// The Amadeus OAuth2 access token, fetched once and shared by every search
/// until shortly before it expires.
///
/// Concurrent searches that find no valid token wait for one fetch. The
/// token is refreshed a minute before `expires_in` runs out (half its life
/// for tokens shorter than two minutes), measured on the injected transport
/// clock: real time, as the token endpoint measures it.
actor AmadeusTokenCache {
    /// What the token endpoint answered: the token and its lifetime in seconds.
    typealias Grant = (token: String, lifetimeSeconds: Int)
    typealias Fetch = @Sendable () async throws(ProviderError) -> Grant

    private struct Held {
        let value: String
        let refreshAt: Date
    }

    private let clock: TransportClock
    private let fetch: Fetch
    private var held: Held?
    private var pending: Task<Result<Held, ProviderError>, Never>?

    init(clock: TransportClock, fetch: @escaping Fetch) {
        self.clock = clock
        self.fetch = fetch
    }

    /// A token valid for a while longer, fetching one if needed.
    func token() async throws(ProviderError) -> String {
        if let held, clock.now() < held.refreshAt { return held.value }
        let task = pending ?? startFetch()
        let result = await task.value
        if pending == task {
            pending = nil
            if case .success(let fresh) = result { held = fresh }
        }
        return try result.get().value
    }

    /// Forgets `token` (the API refused it), unless a newer one replaced it already.
    func invalidate(_ token: String) {
        if held?.value == token { held = nil }
    }

    private func startFetch() -> Task<Result<Held, ProviderError>, Never> {
        let fetch = fetch
        let clock = clock
        let task = Task { () -> Result<Held, ProviderError> in
            do throws(ProviderError) {
                let grant = try await fetch()
                let lifetime = max(0, grant.lifetimeSeconds)
                let margin = min(60, lifetime / 2)
                return .success(Held(value: grant.token, refreshAt: clock.now().addingTimeInterval(TimeInterval(lifetime - margin))))
            } catch {
                return .failure(error)
            }
        }
        pending = task
        return task
    }
}
