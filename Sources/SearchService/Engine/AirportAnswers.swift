import FareLensMessages
import Foundation
import Synchronization

/// Airport look-ups and autocomplete answers, cached for 1 hour (SPEC §1)
/// against the injected clock. Bounded: at most `capacity` answers.
final class AirportAnswers: Sendable {
    static let lifetime: TimeInterval = 3600
    let directory: AirportDirectory
    let now: @Sendable () -> Date
    let capacity: Int
    private let answers = Mutex<[String: (AirportAutocompleteResponse, Date)]>([:])

    init(directory: AirportDirectory, capacity: Int = 5000, now: @escaping @Sendable () -> Date) {
        self.directory = directory
        self.capacity = capacity
        self.now = now
    }

    func autocomplete(_ request: AirportAutocompleteRequest) throws(SearchError) -> AirportAutocompleteResponse {
        let key = "\(request.limit)|\(request.query.lowercased())"
        let at = now()
        if let (cached, stored) = answers.withLock({ $0[key] }), at.timeIntervalSince(stored) <= Self.lifetime { return cached }
        let response = try directory.autocomplete(request)
        answers.withLock { answers in
            if answers.count >= capacity { answers = answers.filter { at.timeIntervalSince($0.value.1) <= Self.lifetime } }
            if answers.count < capacity { answers[key] = (response, at) }
        }
        return response
    }

    /// Whether an answer for `request` is cached and fresh (tests).
    func isCached(_ request: AirportAutocompleteRequest) -> Bool {
        guard let (_, stored) = answers.withLock({ $0["\(request.limit)|\(request.query.lowercased())"] }) else { return false }
        return now().timeIntervalSince(stored) <= Self.lifetime
    }
}
