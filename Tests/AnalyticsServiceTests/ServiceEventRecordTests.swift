@testable import AnalyticsService
import GRDB
import Testing

@Suite("A raw event's row")
struct ServiceEventRecordTests {
    @Test("appended through the cached statement, each row reads back as the record it was, with the table's next id, a nil pseudonym kept nil")
    func appendReadsBack() throws {
        let queue = try DatabaseQueue()
        try queue.write(ServiceEventRecord.migrate)
        let rows = [
            ServiceEventRecord(id: nil, publisher: "search-1", sequence: 7, topic: "search.search-completed", atUnixMs: 1_796_000_000_000, day: 20_787, pseudonym: "p-1", payloadJSON: #"{"cacheHit":true}"#),
            ServiceEventRecord(id: nil, publisher: "search-1", sequence: -3, topic: "search.quota-warning", atUnixMs: 1_796_000_000_001, day: 20_787, pseudonym: nil, payloadJSON: "{}"),
        ]
        try queue.write { db in
            for row in rows { try row.append(in: db) }
        }
        let read = try queue.read { db in try ServiceEventRecord.order(Column("id")).fetchAll(db) }
        #expect(read.map(\.id) == [1, 2])
        #expect(read.map { var row = $0; row.id = nil; return row } == rows)
    }
}
