import FareLensBus
import FareLensMessages
import Synchronization

extension PeerConnection {
    /// Sends a typed request over this connection and decodes its typed response.
    nonisolated(nonsending) func request<R: BusRequest>(_ request: R, to address: ServiceAddress, context: RequestContext) async throws(BusError) -> R.Response {
        WireTimeline.mark(.callerStarts)
        var envelope = try WireEnvelope.request(request, context: context)
        envelope.address = address.name
        let reply = try await call(envelope, dueAt: context.dueAt)
        if let error = reply.busError { throw error }
        do {
            let response = try R.Response(wireEncoded: Array(reply.payload))
            WireTimeline.mark(.callerResumed)
            return response
        } catch {
            throw .badMessage("response to \(R.wireTypeName) does not decode as \(R.Response.wireTypeName): \(error)")
        }
    }
}

/// Counts down acknowledgements of one relayed durable event; the last one
/// acknowledges it to its sender.
final class AcknowledgementCountdown: Sendable {
    private let remaining: Mutex<Int>
    private let done: @Sendable () -> Void

    init(count: Int, done: @escaping @Sendable () -> Void) {
        remaining = Mutex(count)
        self.done = done
    }

    func arrive() {
        let finished = remaining.withLock { count -> Bool in
            count -= 1
            return count == 0
        }
        if finished { done() }
    }
}
