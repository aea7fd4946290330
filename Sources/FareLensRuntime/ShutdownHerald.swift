import FareLensBus
import FareLensServiceKit
import ServiceLifecycle

/// The first service to hear of a graceful shutdown (it is listed last in
/// the node's service group, which stops services in reverse order): it tells
/// the bus, before any service stops, that durable events its consumers give
/// up unhandled must stay unacknowledged (``MessageBus/beginShutdown()``), so
/// a graceful restart redelivers them instead of losing them.
struct ShutdownHerald: Service {
    let bus: MessageBus

    func run() async throws {
        try? await gracefulShutdown()
        bus.beginShutdown()
    }
}
