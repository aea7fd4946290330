public import FareLensBus

/// The `PriceDropped` events a subscriber receives until the end marker
/// (route `"end"`), which a test publishes after every publisher has
/// returned, so it is queued behind all their events: a lost event fails at
/// once instead of waiting out a time limit. Bounded against hangs only.
///
/// - Parameter cast: how to read a `PriceDropped` from the subscription's
///   element (identity for a typed subscription, a cast for a wildcard one).
public func eventsUntilEndMarker<Event: Sendable>(
    _ subscription: EventSubscription<Event>, _ cast: @escaping @Sendable (Event) -> PriceDropped?
) async throws -> [PriceDropped] {
    try await withTimeLimit("the end marker arrived", limit: .seconds(60)) {
        var received: [PriceDropped] = []
        for await delivery in subscription {
            guard let event = cast(delivery.event) else { continue }
            if event.route == "end" { break }
            received.append(event)
        }
        return received
    }
}
