public import GRDB

/// The storage side of a service's event outbox: the events a service
/// commits with its changes, kept until the bus has accepted them. The relay
/// that publishes them is `EventOutbox` (FareLensRuntime).
extension ServiceDatabase {
    /// Creates `event_outbox` and `event_outbox_identity`, with the
    /// identity's random instance. The body of a service's
    /// `<service>-NNN-event-outbox` migration.
    @Sendable public static func migrateEventOutbox(_ db: Database) throws {
        try db.create(table: EventOutboxRecord.databaseTableName) { table in
            table.autoIncrementedPrimaryKey("sequence")
            table.column("typeName", .text).notNull()
            table.column("payload", .blob).notNull()
            table.column("traceHigh", .integer).notNull()
            table.column("traceLow", .integer).notNull()
            table.column("committedAtUnixMs", .integer).notNull()
        }
        try db.create(table: EventOutboxIdentity.databaseTableName) { table in
            table.column("instance", .text).notNull()
        }
        try EventOutboxIdentity(instance: EventOutboxIdentity.newInstance()).insert(db)
    }

    /// The outbox's instance, made by its migration.
    ///
    /// - Throws: ``StoreError`` `migrationFailed` when the database has no
    ///   outbox (its service did not register the migration).
    public func eventOutboxInstance() throws(StoreError) -> String {
        let instance = try read { db in try EventOutboxIdentity.fetchOne(db)?.instance }
        guard let instance else { throw StoreError.migrationFailed(path ?? ":memory:", "no event outbox identity (migration not registered)") }
        return instance
    }

    /// The oldest waiting events, at most `limit`, in sequence order.
    public func waitingEvents(limit: Int) throws(StoreError) -> [EventOutboxRecord] {
        try read { db in try Self.waitingEvents(after: 0, limit: limit, in: db) }
    }

    /// The waiting events after `sequence`, at most `limit`, in sequence
    /// order; awaited, so the calling thread is free while a reader is found.
    public func waitingEvents(after sequence: Int64, limit: Int) async throws(StoreError) -> [EventOutboxRecord] {
        try await awaitedRead { db in try Self.waitingEvents(after: sequence, limit: limit, in: db) }
    }

    private static func waitingEvents(after sequence: Int64, limit: Int, in db: Database) throws -> [EventOutboxRecord] {
        try EventOutboxRecord.filter(EventOutboxRecord.Columns.sequence > sequence).order(EventOutboxRecord.Columns.sequence).limit(limit).fetchAll(db)
    }

    /// How many events wait.
    public func waitingEventCount() throws(StoreError) -> Int {
        try read { db in try EventOutboxRecord.fetchCount(db) }
    }

    /// Removes the waiting events up to and including `sequence` (the bus
    /// has accepted them), awaited: the calling thread is free while the
    /// service's own transactions hold the writer.
    public func removeWaitingEvents(through sequence: Int64) async throws(StoreError) {
        _ = try await awaitedWrite { db in try EventOutboxRecord.filter(EventOutboxRecord.Columns.sequence <= sequence).deleteAll(db) }
    }
}

extension ServiceMigrations {
    /// Registers the event outbox's tables under the service's own migration
    /// `name` (such as `watchlist-002-event-outbox`), after its earlier ones.
    public mutating func registerEventOutbox(named name: String) {
        register(name, ServiceDatabase.migrateEventOutbox)
    }
}
