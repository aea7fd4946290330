public import FareLensBus
public import GRDB

/// Where one change of a thing stands among that thing's changes, for a
/// service that keeps the thing from another service's events (search's
/// and alerts' copies of the watchlists): the change's time, then, within
/// one millisecond, its place in its publisher's sequence.
///
/// Durable events arrive at least once, and one delivered again arrives out
/// of order, so a keeper applies a change only over an older one. Time alone
/// cannot order two changes made in the same millisecond. Their event ids
/// can: an outbox's events are published as `<owner>.outbox#<instance>`
/// with a sequence that only grows, in commit order, for the life of its
/// database (``EventOutboxStore``), and a bus instance's own sequence grows
/// too. Ids of two publishers say nothing of each other: in one millisecond,
/// a change from another publisher (or one kept before stamps had ids) is
/// applied in arrival order, as before.
public struct ChangeStamp: Sendable, Equatable {
    /// The change's own time (its event's `at_unix_ms`).
    public let atUnixMs: Int64
    /// The publisher of its event; nil when not known.
    public let publisher: String?
    /// Its event's place in the publisher's sequence; nil when not known.
    public let sequence: Int64?

    /// A stamp of a change at `atUnixMs` published as `id` (nil: not known).
    public init(atUnixMs: Int64, id: EventID?) {
        self.init(atUnixMs: atUnixMs, publisher: id?.publisher, sequence: id.map { Int64(bitPattern: $0.sequence) })
    }

    /// A stamp as a keeper stored it.
    public init(atUnixMs: Int64, publisher: String?, sequence: Int64?) {
        self.atUnixMs = atUnixMs
        self.publisher = publisher
        self.sequence = sequence
    }

    /// Whether the change stamped `self` is applied over the one stamped
    /// `kept`: it is later, or in the same millisecond and later in the same
    /// publisher's sequence, or in the same millisecond with nothing to
    /// compare it by. The same event delivered again supersedes nothing.
    public func supersedes(_ kept: ChangeStamp) -> Bool {
        guard atUnixMs == kept.atUnixMs else { return atUnixMs > kept.atUnixMs }
        guard let publisher, let sequence, let keptSequence = kept.sequence, publisher == kept.publisher else { return true }
        return sequence > keptSequence
    }
}

/// A row a keeper stores from another service's events, remembering the
/// change it is from: its time, and its event's publisher and sequence
/// (nil in a row stored before a keeper kept them).
public protocol ChangeStampedRecord: TableRecord {
    /// `at_unix_ms` of the event this row is from.
    var changedAtUnixMs: Int64 { get }
    /// The publisher of that event.
    var changedBy: String? { get }
    /// Its place in the publisher's sequence.
    var changedSequence: Int64? { get }
}

extension ChangeStampedRecord {
    /// Where the change this row is from stands.
    public var stamp: ChangeStamp { ChangeStamp(atUnixMs: changedAtUnixMs, publisher: changedBy, sequence: changedSequence) }

    /// A migration: adds the columns `changedBy` and `changedSequence` to the
    /// table (left null in the rows it holds, until their next change).
    public static func addChangeStampColumns(_ db: Database) throws {
        try db.alter(table: databaseTableName) { table in
            table.add(column: "changedBy", .text)
            table.add(column: "changedSequence", .integer)
        }
    }
}
