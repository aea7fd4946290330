/// Moving a mesh's stepped clocks forward through a long step one due
/// instant at a time, as `farelensctl clock advance` does: a step of a day
/// then runs every market sweep and watchlist check that falls due within
/// it, each at its own instant and in order, as four steps of six hours do
/// (a single jump ran each once, at the end).
public enum NodeClockStepping {
    /// Moves every node from the mesh's latest time to `target` (Unix ms),
    /// stopping at each instant at which periodic work on some node is due
    /// (`NodeClockResponse.next_due_unix_ms`) and letting `settle` wait
    /// until the mesh has done it before going on. Stops at `target` last;
    /// settling after that is the caller's choice.
    ///
    /// - Parameters:
    ///   - read: every node's clock, without moving it.
    ///   - move: moves every node's clock to an instant.
    ///   - settle: waits until what came due has run and the mesh is still.
    /// - Returns: the instants stopped at, in order (empty when the mesh was
    ///   already at or past `target`).
    public static func advance(
        to target: Int64,
        read: () async throws -> [NodeClockResponse],
        move: (Int64) async throws -> Void,
        settle: () async throws -> Void
    ) async throws -> [Int64] {
        var stops: [Int64] = []
        while true {
            let clocks = try await read()
            let now = clocks.map(\.nowUnixMs).max() ?? target
            guard now < target else { return stops }
            let stop = min(target, clocks.map(\.nextDueUnixMs).filter { $0 > now }.min() ?? target)
            try await move(stop)
            stops.append(stop)
            if stop < target { try await settle() }
        }
    }
}
