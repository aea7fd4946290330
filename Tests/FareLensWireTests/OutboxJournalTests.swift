import FareLensBus
import FareLensMessages
import FareLensTesting
@testable import FareLensWire
import Foundation
import GRDB
import Testing

/// The bridge journal: named migrations, one record per table, and the
/// outbox keeping waiting envelopes on disk only.
@Suite("Outbox journal")
struct OutboxJournalTests {
    func journalPath() -> String {
        temporarySocketPath().replacingOccurrences(of: "bus.sock", with: "bridge-outbox.sqlite")
    }

    func event(_ sequence: UInt64, topic: String = "test.price-dropped", tag: UInt64 = 0) -> WireEnvelope {
        var envelope = WireEnvelope()
        envelope.kind = .event
        envelope.topic = topic
        envelope.typeName = PriceDropped.wireTypeName
        envelope.payload = Data(#"{"route":"LIS-JFK","sequence":\#(sequence)}"#.utf8)
        envelope.event.publisher = "publisher#1"
        envelope.event.sequence = sequence
        envelope.event.durable = true
        envelope.correlationID = tag
        return envelope
    }

    func hello(_ name: String) -> WireHello {
        var hello = WireHello()
        hello.protocolVersion = 1
        hello.role = .node
        hello.nodeName = name
        hello.topicsWanted = ["test.price-dropped"]
        return hello
    }

    func migrations(at path: String) throws -> [String] {
        try DatabaseQueue(path: path).read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
    }

    @Test("a reopened journal still holds the waiting events and the known nodes")
    func reopenedJournalKeepsRows() throws {
        let path = journalPath()
        do {
            let journal = try OutboxJournal(path: path, logger: quietLogger())
            for tag in UInt64(1) ... 3 { #expect(journal.record(peer: "alerts-node", tag: tag, envelope: event(tag, tag: tag))) }
            journal.remember(hello("alerts-node"))
            journal.remove(peer: "alerts-node", tags: [2])
        }
        let reopened = try OutboxJournal(path: path, logger: quietLogger())
        #expect(reopened.tags(peer: "alerts-node") == [1, 3])
        #expect(reopened.envelopes(peer: "alerts-node", tags: 1 ... 3).map(\.envelope) == [event(1, tag: 1), event(3, tag: 3)])
        #expect(reopened.knownPeers() == [hello("alerts-node")])
    }

    @Test("a fresh journal records its schema as the named migrations bridge-001-outbox and bridge-002-known-peers")
    func migrationsAreNamed() throws {
        let path = journalPath()
        _ = try OutboxJournal(path: path, logger: quietLogger())
        #expect(try migrations(at: path) == ["bridge-001-outbox", "bridge-002-known-peers"])
    }

    @Test("a journal written by the code before migrations existed opens, keeps its rows and gets the named migrations")
    func preMigrationJournalIsAdopted() throws {
        let path = journalPath()
        do {
            // Exactly what OutboxJournal ran before it had migrations.
            let old = try DatabaseQueue(path: path)
            try old.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS outbox (peer TEXT NOT NULL, tag INTEGER NOT NULL, envelope BLOB NOT NULL, PRIMARY KEY (peer, tag));
                    CREATE TABLE IF NOT EXISTS known_peer (name TEXT PRIMARY KEY, hello BLOB NOT NULL);
                    """)
                for tag in UInt64(1) ... 2 {
                    try db.execute(sql: "INSERT OR REPLACE INTO outbox (peer, tag, envelope) VALUES (?, ?, ?)",
                                   arguments: ["alerts-node", Int64(tag), try event(tag, tag: tag).serializedBytes() as Data])
                }
                try db.execute(sql: "INSERT OR REPLACE INTO known_peer (name, hello) VALUES (?, ?)",
                               arguments: ["alerts-node", try hello("alerts-node").serializedBytes() as Data])
            }
        }
        let journal = try OutboxJournal(path: path, logger: quietLogger())
        #expect(journal.tags(peer: "alerts-node") == [1, 2])
        #expect(journal.envelopes(peer: "alerts-node", tags: 1 ... 2).map(\.envelope) == [event(1, tag: 1), event(2, tag: 2)])
        #expect(journal.knownPeers() == [hello("alerts-node")])
        #expect(journal.record(peer: "alerts-node", tag: 3, envelope: event(3, tag: 3)))
        #expect(try migrations(at: path) == ["bridge-001-outbox", "bridge-002-known-peers"])
    }

    @Test("a journaled outbox reads a waiting envelope back from disk to redeliver it, not from memory")
    func journaledEnvelopesLiveOnDisk() throws {
        let path = journalPath()
        let journal = try OutboxJournal(path: path, logger: quietLogger())
        let outbox = DurableOutbox(capacity: 10, peer: "alerts-node", journal: journal)
        let tagged = try outbox.append(event(1))
        // Change the row behind the outbox's back: redelivery must show it.
        let rewritten = event(1, topic: "test.rewritten-on-disk", tag: tagged.correlationID)
        #expect(journal.record(peer: "alerts-node", tag: tagged.correlationID, envelope: rewritten))
        var redelivered: [WireEnvelope] = []
        outbox.forEachUnacknowledged { redelivered.append($0) }
        #expect(redelivered == [rewritten])
    }

    @Test("an outbox without a journal keeps at most its cap in memory, refuses the next event with overloaded, and has room again after an acknowledgement")
    func memoryOutboxIsCapped() throws {
        let outbox = DurableOutbox(capacity: 2, peer: "ctl")
        let first = try outbox.append(event(1))
        _ = try outbox.append(event(2))
        #expect { try outbox.append(event(3)) } throws: { ($0 as? BusError)?.kind == .overloaded }
        outbox.acknowledge([first.correlationID])
        let third = try outbox.append(event(3))
        var redelivered: [UInt64] = []
        outbox.forEachUnacknowledged { redelivered.append($0.event.sequence) }
        #expect(redelivered == [2, 3])
        #expect(third.correlationID == 3)
    }

    @Test("redelivery pages through a backlog longer than one read, oldest first")
    func redeliveryPages() throws {
        let journal = try OutboxJournal(path: journalPath(), logger: quietLogger())
        let outbox = DurableOutbox(capacity: 5000, peer: "alerts-node", journal: journal)
        let count = DurableOutbox.redeliveryPage * 2 + 7
        for sequence in 1 ... count { _ = try outbox.append(event(UInt64(sequence))) }
        outbox.acknowledge([5, 1500])
        var redelivered: [UInt64] = []
        outbox.forEachUnacknowledged { redelivered.append($0.event.sequence) }
        #expect(redelivered == (1 ... UInt64(count)).filter { $0 != 5 && $0 != 1500 })
    }
}
