public import FareLensServiceKit
import FareLensStore
public import Foundation

/// The gateway: the app's HTTP/JSON edge (docs/api.md). It is placed like a
/// service (`--services all` includes it, `--services gateway` runs it alone)
/// but answers no bus request: it is a bus client, like farelensctl, and
/// imports no service. Its database holds only its session-signing keys.
public enum GatewayEntry {
    /// How the node builds the gateway.
    public static let descriptor = descriptor()

    /// The gateway with its clocks and a listener of its port given, for
    /// tests: `now` is the real time access tokens are issued and checked
    /// at, `monotonicSeconds` the rate limits' clock, and `onListening`
    /// hears the port once the server listens.
    public static func descriptor(
        now: @escaping @Sendable () -> Date = { Date() },
        monotonicSeconds: (@Sendable () -> Double)? = nil,
        onListening: @escaping @Sendable (Int) -> Void = { _ in }
    ) -> ServiceDescriptor {
        ServiceDescriptor(name: "gateway", address: "gateway", migrations: migrations, runFailureStopsNode: true) { context in
            let settings = try GatewaySettings(context.configuration)
            let keys = try SessionKeys.load(settings: settings, database: context.database, logger: context.logger)
            let tls = try GatewayTLS.configuration(settings)
            return GatewayService(
                bus: context.bus, settings: settings, keys: keys, tls: tls, logger: context.logger, now: now,
                monotonicSeconds: monotonicSeconds ?? RateLimiter.monotonicSeconds, onListening: onListening)
        }
    }

    static var migrations: ServiceMigrations {
        var migrations = ServiceMigrations()
        migrations.register("gateway-001-signing-keys", SigningKeyRecord.migrate)
        return migrations
    }
}
