import FareLensBus
import FareLensMessages
import Foundation

/// Waiting until a mesh has fallen still: every node connected, no request
/// in flight, no event queued, no durable backlog, and no node publishing
/// an event, for a whole `still` period of readings 50 ms apart. What a
/// script driving a stepped clock waits for before it reads answers or
/// moves the clock again (`farelensctl clock advance --wait`).
enum MeshStillness {
    /// What one reading of the whole mesh saw.
    struct Reading: Equatable {
        /// Node → events published so far.
        var published: [String: UInt64] = [:]
        /// What was going on ("spoke-a away, 12 durable events waiting"); empty when nothing.
        var activity: [String] = []
        var busy: Bool { !activity.isEmpty }
    }

    /// Waits until still, at most the session's budget (`--timeout-ms`).
    ///
    /// - Returns: how long after the call the mesh was first seen still.
    /// - Throws: ``CtlFailure`` `mesh-not-still` past the budget, saying what was still going on.
    static func wait(_ session: CtlSession, still: Duration, poll: Duration = .milliseconds(50)) async throws -> Duration {
        let start = ContinuousClock.now
        var last: Reading?
        var stillSince: ContinuousClock.Instant?
        while true {
            let reading = try await read(session)
            let now = ContinuousClock.now
            if !reading.busy, reading == last {
                let since = stillSince ?? now
                stillSince = since
                if now - since >= still { return since - start }
            } else {
                stillSince = nil
            }
            let previous = last
            last = reading
            guard now - start < session.budget else {
                let why = Self.unrest(reading, previous: previous, quietFor: stillSince.map { now - $0 }, still: still)
                throw CtlFailure(code: "mesh-not-still", "after \(session.budget) the mesh was still busy: \(why)")
            }
            try await Task.sleep(for: poll)  // safe: the pause between two readings, bounded by the budget above
        }
    }

    /// What kept the mesh from counting as still at the last reading:
    /// its activity, else the nodes whose published events rose since the
    /// reading before (no queue shows an event handled between two
    /// readings), else how long it had been quiet of the period asked.
    static func unrest(_ reading: Reading, previous: Reading?, quietFor: Duration?, still: Duration) -> String {
        if reading.busy { return reading.activity.joined(separator: "; ") }
        let publishing = reading.published.sorted { $0.key < $1.key }.compactMap { node, count -> String? in
            guard let before = previous?.published[node], count > before else { return nil }
            return "\(node) published \(count - before) events since the reading before"
        }
        if !publishing.isEmpty { return publishing.joined(separator: "; ") }
        if let previous, Set(previous.published.keys) != Set(reading.published.keys) { return "nodes joined or left between the last two readings" }
        guard let quietFor else { return "only one reading was taken" }
        return "quiet for \(milliseconds(quietFor)) ms of the \(milliseconds(still)) ms asked (--still-ms)"
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    private static func read(_ session: CtlSession) async throws -> Reading {
        let status = try await session.request(MeshStatusRequest())
        var reading = Reading()
        for node in status.nodes {
            guard node.connected else {
                reading.activity.append("\(node.nodeName) away, \(node.pendingDurableEvents) durable events waiting")
                continue
            }
            if node.pendingDurableEvents > 0 { reading.activity.append("\(node.nodeName): \(node.pendingDurableEvents) durable events not yet acknowledged") }
            let load = try await session.request(NodeLoadRequest(), node: node.nodeName)
            reading.published[node.nodeName] = load.eventsPublished
            for (service, count) in load.inFlight.sorted(by: { $0.key < $1.key }) where count > 0 { reading.activity.append("\(node.nodeName): \(count) in flight at \(service)") }
            for (topic, count) in load.queuedEvents.sorted(by: { $0.key < $1.key }) where count > 0 { reading.activity.append("\(node.nodeName): \(count) queued on \(topic)") }
        }
        return reading
    }
}
