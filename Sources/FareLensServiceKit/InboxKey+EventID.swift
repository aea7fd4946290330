public import FareLensBus
public import FareLensStore

extension InboxKey {
    /// The inbox's key of the durable event `id`: its publisher and sequence,
    /// which a redelivery keeps.
    public init(_ id: EventID) {
        self.init(publisher: id.publisher, sequence: id.sequence)
    }
}
