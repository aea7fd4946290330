/// What a service keeps from other services' events and what those services
/// answer when asked, as comparable lines, as a wait last read them.
public struct KeptStateReading: Sendable {
    public var kept: [String] = []
    public var asked: [String] = []
    /// Whether they agreed, the last changes included, before the wait's bound.
    public var agreed = false
}

/// Reads `read` until what is kept equals what is asked and the kept lines
/// include every one of `lastChanges` — the effects of a last change made by
/// each publishing service, which publishes in order, so that once they are
/// kept every earlier event has arrived (without them a wait could end on a
/// moment the two agree by chance). Returns the last reading; the caller
/// expects `agreed`, so a failure shows both sides. `limit` bounds the wait.
public func waitUntilKeptAgrees(
    _ what: String, including lastChanges: [String], limit: Duration = .seconds(10),
    _ read: () async throws -> (kept: [String], asked: [String])
) async -> KeptStateReading {
    var last = KeptStateReading()
    do {
        try await waitUntil("\(what), the last changes included", limit: limit) {
            guard let (kept, asked) = try? await read() else { return false }
            (last.kept, last.asked) = (kept, asked)
            return kept == asked && lastChanges.allSatisfy(kept.contains)
        }
        last.agreed = true
    } catch {}
    return last
}
