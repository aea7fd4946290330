public import FareLensBus

/// A transport for tests: records the id sequence of every event it is
/// handed and the size of every batch, and refuses (`overloaded`, as a full
/// backlog does) the events ``refuses`` names. It forwards a batch one
/// event after another, stopping at the first it refuses, as the
/// protocol's default does.
public final class RecordingTransport: BusTransport {
    /// The id sequence of every event offered, in order (refused ones too).
    public let offered = Locked<[UInt64]>([])
    /// The size of every batch handed over.
    public let batches = Locked<[Int]>([])
    /// Whether to refuse the event of id sequence `sequence`, offered `before` times already.
    private let refuses: @Sendable (_ sequence: UInt64, _ before: Int) -> Bool

    /// A transport that refuses what `refuses` says (nothing by default).
    public init(refusing refuses: @escaping @Sendable (_ sequence: UInt64, _ before: Int) -> Bool = { _, _ in false }) {
        self.refuses = refuses
    }

    /// A transport that refuses the event of id sequence `sequence` the first `times` times it is offered.
    public static func refusing(_ sequence: UInt64, times: Int) -> RecordingTransport {
        RecordingTransport { offered, before in offered == sequence && before < times }
    }

    public func hosts(_ address: ServiceAddress) -> Bool { false }

    public func send<R: BusRequest>(_ request: R, to address: ServiceAddress, context: RequestContext) async throws(BusError) -> R.Response {
        throw .serviceUnavailable(address)
    }

    public func forward<E: BusEvent>(_ event: E, metadata: EventMetadata) async throws(BusError) {
        let sequence = metadata.id.sequence
        var refuse = false
        offered.update { offered in
            refuse = refuses(sequence, offered.count { $0 == sequence })
            offered.append(sequence)
        }
        if refuse { throw .overloaded("node far", limit: 1) }
    }

    public func forward(batch: [ForwardedEvent]) async -> BatchOutcome {
        batches.update { $0.append(batch.count) }
        return await forwardOneByOne(batch)
    }
}
