package import FareLensBus
package import FareLensMessages
import Foundation

/// Conversions between bus values and their envelope fields.
extension WireEnvelope {
    /// A REQUEST envelope for `request` (correlation id set when sent).
    package static func request<R: BusRequest>(_ request: R, context: RequestContext) throws(BusError) -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .request
        envelope.address = R.address.name
        envelope.typeName = R.wireTypeName
        envelope.trace = WireTraceContext(context.traceID)
        envelope.callerIsAdmin = context.isAdmin
        do {
            envelope.payload = Data(try request.wireEncoded())
        } catch {
            throw .badMessage("cannot encode \(R.wireTypeName): \(error)")
        }
        return envelope
    }

    /// The RESPONSE to the request with `correlationID`.
    package static func response(to correlationID: UInt64, result: Result<[UInt8], BusError>, typeName: String) -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .response
        envelope.correlationID = correlationID
        switch result {
        case .success(let bytes):
            envelope.typeName = typeName
            envelope.payload = Data(bytes)
        case .failure(let error):
            envelope.error = WireError(error)
        }
        return envelope
    }

    /// An EVENT envelope (delivery tag assigned by the outbox for durable topics).
    package static func event<E: BusEvent>(_ event: E, metadata: EventMetadata) throws -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .event
        envelope.topic = E.topic.name
        envelope.typeName = E.wireTypeName
        envelope.trace = WireTraceContext(metadata.traceID)
        envelope.event.publisher = metadata.id.publisher
        envelope.event.sequence = metadata.id.sequence
        envelope.event.durable = E.topic.isDurable
        envelope.payload = Data(try event.wireEncoded())
        return envelope
    }

    /// A GOODBYE carrying the reason.
    static func goodbye(_ reason: String) -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .goodbye
        envelope.error.kind = "goodbye"
        envelope.error.message = reason
        return envelope
    }

    /// The request's deadline re-anchored on this node's clock.
    var dueAt: BusInstant {
        BusInstant.now.advanced(by: .microseconds(Int64(clamping: deadlineMicros)))
    }

    /// The failure carried by a RESPONSE, if any.
    package var busError: BusError? {
        guard hasError else { return nil }
        let kind = BusError.Kind(name: error.kind) ?? .remote
        return BusError(kind: kind, remoteCode: error.remoteCode.isEmpty ? nil : error.remoteCode, message: error.message)
    }

    /// The event's identity.
    var eventID: EventID { EventID(publisher: event.publisher, sequence: event.sequence) }
}

extension WireTraceContext {
    init(_ trace: TraceID) {
        self.init()
        traceIDHigh = trace.high
        traceIDLow = trace.low
    }
    var traceID: TraceID { TraceID(high: traceIDHigh, low: traceIDLow) }
}

extension WireError {
    init(_ error: BusError) {
        self.init()
        kind = error.kind.name
        remoteCode = error.remoteCode ?? ""
        message = error.message
    }
}
