public import FareLensBus
import FareLensMessages
import FareLensServiceKit
import Foundation
import Prometheus

extension Node {
    /// This node's admin address, `admin.node.<nodeName>`.
    public var adminAddress: ServiceAddress { .node(configuration.nodeName) }

    /// Serves the node-level admin requests (metrics, log level, load, clock,
    /// databases, backup) at ``adminAddress``, on hub and spokes alike. The hub refuses
    /// the address to peers that are not admin clients (its `admin` prefix);
    /// the handlers check again, so a request that reached a spoke some other
    /// way is refused too.
    func serveNodeAdmin(databases: NodeDatabases) throws(BusError) {
        let address = adminAddress, name = configuration.nodeName
        let registry = metrics, control = logLevel
        let adminOnly: @Sendable (RequestContext) throws(BusError) -> Void = { context throws(BusError) in
            guard context.isAdmin else { throw .forbidden(address) }
        }
        try bus.serve(NodeMetricsRequest.self, at: address) { _, context in
            try adminOnly(context)
            var response = NodeMetricsResponse()
            response.nodeName = name
            response.text = MetricsExposition.text(of: registry)
            return response
        }
        try bus.serve(NodeLogLevelRequest.self, at: address) { request, context in
            try adminOnly(context)
            var response = NodeLogLevelResponse()
            response.nodeName = name
            response.previousLevel = try control.set(named: request.level).rawValue
            response.level = control.level.rawValue
            return response
        }
        try bus.serve(NodeLoadRequest.self, at: address) { [bus] _, context in
            try adminOnly(context)
            let load = bus.load()
            var response = NodeLoadResponse()
            response.nodeName = name
            // The node's own admin address is not a service: left out.
            for (service, count) in load.inFlight where !service.name.hasPrefix("admin") { response.inFlight[service.name] = UInt32(clamping: count) }
            for (topic, count) in load.queuedEvents { response.queuedEvents[topic] = UInt64(count) }
            response.eventsPublished = load.eventsPublished
            return response
        }
        let clock = self.clock
        try bus.serve(NodeClockRequest.self, at: address) { request, context in
            try adminOnly(context)
            var response = NodeClockResponse()
            response.nodeName = name
            response.kind = switch clock {
            case is SteppedClock: "stepped"
            case is FastForwardClock: "fast-forward"
            default: "system"
            }
            if request.advanceToUnixMs != 0 {
                guard let stepped = clock as? SteppedClock else {
                    throw NodeAdminError.clockNotStepped(node: name, kind: response.kind)
                }
                stepped.advance(to: Date(timeIntervalSince1970: Double(request.advanceToUnixMs) / 1000))
            }
            response.nowUnixMs = Int64((clock.now().timeIntervalSince1970 * 1000).rounded(.down))
            if let stepped = clock as? SteppedClock {
                // When its services' periodic work is next due, and what a step made due that has not run.
                let plans = stepped.plans()
                response.nextDueUnixMs = plans.nextDue.map { Int64(($0.timeIntervalSince1970 * 1000).rounded(.up)) } ?? 0
                response.overdue = plans.overdue
            }
            return response
        }
        try bus.serve(NodeDatabasesRequest.self, at: address) { _, context in
            try adminOnly(context)
            var response = NodeDatabasesResponse()
            response.nodeName = name
            response.services = databases.services
            return response
        }
        try bus.serve(NodeBackupRequest.self, at: address, execution: .inline) { request, context in
            try adminOnly(context)
            let (path, bytes) = try await databases.backup(request.service, into: request.directory, node: name)
            var response = NodeBackupResponse()
            response.path = path
            response.bytes = bytes
            return response
        }
    }
}
