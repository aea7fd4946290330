public import Configuration
public import FareLensBus
public import FareLensStore
public import Logging

/// What a service gets from the node that hosts it.
public struct ServiceContext: Sendable {
    /// The bus: the only way to reach other services.
    public let bus: MessageBus
    /// The service's own database (no other service opens it).
    public let database: ServiceDatabase
    /// A logger labelled with the service name.
    public let logger: Logger
    /// The injected wall clock.
    public let clock: any WallClock
    /// The service's own configuration section: key `search.providers` is
    /// `providers` here (file, environment `FARELENS_SEARCH_PROVIDERS`, or default).
    public let configuration: ConfigReader
    /// The node's whole configuration, for ``section(_:)``.
    private let node: ConfigReader
    /// Returns once the node has joined the others: its bridge started
    /// (a spoke journals what it publishes before it connects) and, over
    /// NATS, its subscriptions and consumer made. At once for a node alone.
    public let joined: @Sendable () async -> Void

    /// Creates a context; `node` is the whole configuration (by default the
    /// service's own section is all there is).
    public init(
        bus: MessageBus, database: ServiceDatabase, logger: Logger, clock: any WallClock,
        configuration: ConfigReader = ConfigReader(provider: InMemoryProvider(values: [:])), node: ConfigReader? = nil,
        joined: @escaping @Sendable () async -> Void = {}
    ) {
        self.bus = bus
        self.database = database
        self.logger = logger
        self.clock = clock
        self.configuration = configuration
        self.node = node ?? ConfigReader(provider: InMemoryProvider(values: [:]))
        self.joined = joined
    }

    /// A section of the node's configuration that a service owns under
    /// another name than its own: the subscription service reads `appstore.*`
    /// (`FARELENS_APPSTORE_…`), named after the store, not the service.
    public func section(_ name: String) -> ConfigReader {
        node.scoped(to: ConfigKey(name))
    }
}

/// The behaviour of a running service.
public protocol ServiceBehaviour: Sendable {
    /// Registers request handlers and subscriptions; called once, before the
    /// node reports ready.
    func register(on bus: MessageBus) throws
    /// Long-running work (subscription loops, schedules). Called after
    /// ``register(on:)``; must return when its task is cancelled, which
    /// happens after the service has drained on shutdown.
    func run() async throws
}

extension ServiceBehaviour {
    /// No handlers by default.
    public func register(on bus: MessageBus) throws {}
    /// No background work by default: returns at once.
    public func run() async throws {}
}

/// How to build one of the six services: its name, bus address, database
/// migrations and behaviour.
public struct ServiceDescriptor: Sendable {
    /// The service name used in `--services`, logs and the database file name.
    public let name: String
    /// The bus address its requests are sent to.
    public let address: ServiceAddress
    /// The migrations of its database.
    public let migrations: ServiceMigrations
    /// Builds the behaviour once the database is open.
    public let make: @Sendable (ServiceContext) throws -> any ServiceBehaviour
    /// When its `run()` fails (not cancelled), the whole node stops and
    /// reports the error, instead of logging it and going on without the
    /// service's background work. The gateway sets it: a node whose API
    /// cannot listen must not look healthy.
    public let runFailureStopsNode: Bool

    /// Creates a descriptor.
    public init(
        name: String,
        address: ServiceAddress,
        migrations: ServiceMigrations = ServiceMigrations(),
        runFailureStopsNode: Bool = false,
        make: @escaping @Sendable (ServiceContext) throws -> any ServiceBehaviour
    ) {
        self.name = name
        self.address = address
        self.migrations = migrations
        self.runFailureStopsNode = runFailureStopsNode
        self.make = make
    }
}

/// The behaviour of a service whose features have not been built yet: it
/// opens its database, starts, reports ready and stops like any other, but
/// registers no handlers.
public struct IdleBehaviour: ServiceBehaviour {
    /// Creates it.
    public init() {}
}
