public import GRDB

/// The named migrations of one service's database. A migration, once
/// shipped, is never edited: change the schema with a new one.
public struct ServiceMigrations: Sendable {
    var migrator = DatabaseMigrator()
    private var bodies: [(String, @Sendable (Database) throws -> Void)] = []
    /// Names in registration order.
    public var names: [String] { bodies.map(\.0) }

    /// An empty list.
    public init() {}

    /// Appends a migration.
    public mutating func register(_ name: String, _ migrate: @escaping @Sendable (Database) throws -> Void) {
        migrator.registerMigration(name, migrate: migrate)
        bodies.append((name, migrate))
    }

    /// Visits every migration in order (to compose lists).
    public func forEachMigration(_ body: (String, @escaping @Sendable (Database) throws -> Void) -> Void) {
        for (name, migrate) in bodies { body(name, migrate) }
    }

    /// Applies the migrations that have not run yet.
    func apply(to writer: any DatabaseWriter) throws {
        try migrator.migrate(writer)
    }
}
