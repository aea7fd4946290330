import Configuration
import FareLensRuntime
import FareLensServiceKit
import FareLensServices
import FareLensTesting
import Foundation
import Logging
import Synchronization
import Testing

/// Every key a node reads is declared in ``ConfigKeyCatalog/farelens`` (so
/// it is listed by `farelens config keys` and not reported as unknown), and
/// every declared key is read: a node with every service runs over a
/// configuration that turns each optional part on (a webhook, live
/// providers, Sign in with Apple), recording the keys its readers ask for.
@Suite("Configuration keys: what the node reads is what the catalog declares")
struct ConfigKeysReadTests {
    /// Records the dotted key of every configuration read.
    final class KeyRecorder: AccessReporter {
        let keys = Mutex<Set<String>>([])
        func report(_ event: AccessEvent) {
            _ = keys.withLock { $0.insert(event.metadata.key.components.joined(separator: ".")) }
        }
    }

    @Test("a node with every service reads exactly the declared keys")
    func readsAreDeclared() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-keys-\(UUID().uuidString)").path
        let secret = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
        let values: [String: String] = [
            "dataDir": directory, "nodeName": "keys-node", "gateway.listen": "127.0.0.1:0",
            "gateway.apple.bundleId": "app.farelens.test",
            "alerts.webhook.url": "http://127.0.0.1:9/hooks", "alerts.webhook.secrets": secret,
            "search.sweep.intervalSeconds": "0", "search.providers": "simulated,amadeus,travelpayouts",
            "search.amadeus.baseUrl": "http://127.0.0.1:9", "search.amadeus.clientId": "id", "search.amadeus.clientSecret": "secret",
            "search.travelpayouts.baseUrl": "http://127.0.0.1:9", "search.travelpayouts.token": "token",
        ]
        let provider = InMemoryProvider(values: Dictionary(uniqueKeysWithValues: values.map {
            (AbsoluteConfigKey(ConfigKey($0.key)), ConfigValue(.string($0.value), isSecret: false))
        }))
        let recorder = KeyRecorder()
        let configuration = try NodeConfiguration(reader: ConfigReader(provider: provider, accessReporter: recorder))
        let node = try Node(configuration: configuration, catalog: ServiceCatalog.all, logger: Logger(label: "test"))
        let ready = Locked(false), stopped = Locked(false)
        let running = Task {
            defer { stopped.set(true) }
            try await node.run(handleSignals: false) { _ in ready.set(true) }
        }
        // A node that fails to start ends `run`, whose error the test then reports.
        try await waitUntil("the node is ready or has stopped", limit: .seconds(60)) { ready.get() || stopped.get() }
        await node.shutdown()
        try await running.value

        let read = recorder.keys.withLock { $0 }
        let declared = Set(ConfigKeyCatalog.farelens.specs.map(\.key))
        #expect(read.subtracting(declared).isEmpty, "read but not declared in a settings type's configKeys: \(read.subtracting(declared).sorted())")
        #expect(declared.subtracting(read).isEmpty, "declared but never read: \(declared.subtracting(read).sorted())")
    }
}
