public import FareLensBus

/// Runs `body`, cancelling it and throwing ``WaitTimedOut`` if it has not
/// finished within `limit`: a bound against hangs, not a timing assertion.
///
/// The body must honour cancellation (an `AsyncStream` loop, `Task.sleep`
/// and the bus's requests do); work that ignores it still holds the test.
public func withTimeLimit<T: Sendable>(
    _ what: String,
    limit: Duration = .seconds(30),
    _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)  // safe: an upper bound against hangs, never a timing assertion
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else {
            throw WaitTimedOut(what: "\(what) (within \(limit))")
        }
        return value
    }
}

/// The first `count` events of `subscription`, in arrival order; throws
/// ``WaitTimedOut`` naming how many arrived if the rest do not come within `limit`.
public func firstEvents<Event: Sendable>(
    _ count: Int, of subscription: EventSubscription<Event>, limit: Duration = .seconds(30)
) async throws -> [Event] {
    let received = Locked<[Event]>([])
    do {
        return try await withTimeLimit("\(count) events arrived", limit: limit) {
            for await delivery in subscription {
                received.update { $0.append(delivery.event) }
                if received.get().count == count { break }
            }
            return received.get()
        }
    } catch is WaitTimedOut {
        throw WaitTimedOut(what: "\(count) events arrived (only \(received.get().count) did within \(limit))")
    }
}
