@testable import AlertsService
import Configuration
import FareLensTesting
import Foundation
import Logging
import Testing

@Suite("Alert delivery settings")
struct AlertDeliverySettingsTests {
    func reader(_ values: [String: String], secret: Bool = true) -> ConfigReader {
        var entries: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in values {
            entries[AbsoluteConfigKey(stringLiteral: key)] = ConfigValue(.string(value), isSecret: secret && key.hasSuffix("secrets"))
        }
        return ConfigReader(providers: [InMemoryProvider(values: entries)]).scoped(to: "alerts")
    }

    func error(_ values: [String: String]) -> AlertDeliverySettingsError? {
        #expect(throws: AlertDeliverySettingsError.self) { try AlertDeliverySettings(reader: reader(values)) }
    }

    @Test("nothing set: no webhook, default retries, the log on the logger")
    func defaults() throws {
        let settings = try AlertDeliverySettings(reader: reader([:]))
        #expect(settings.webhook == nil)
        #expect(settings.logPath == nil)
        #expect(settings.retryPolicy == RetryPolicy())
        #expect(settings.gatheringWindow == .milliseconds(100))
    }

    @Test("every key read")
    func everyKey() throws {
        let settings = try AlertDeliverySettings(reader: reader([
            "alerts.webhook.url": "https://hooks.example.com/farelens",
            "alerts.webhook.secrets": "\(DeliveryFixtures.secretText)  \(DeliveryFixtures.oldSecretText)",
            "alerts.webhook.timeoutSeconds": "20", "alerts.webhook.maxAttempts": "5",
            "alerts.webhook.initialBackoffSeconds": "3", "alerts.webhook.maxBackoffSeconds": "90",
            "alerts.log.path": "/var/log/farelens/alerts.jsonl", "alerts.gatherMilliseconds": "250",
        ]))
        let webhook = try #require(settings.webhook)
        #expect(webhook.url == "https://hooks.example.com/farelens")
        #expect(webhook.secrets.map(\.byteCount) == [32, 32])
        #expect(WebhookSignature.header(id: DeliveryFixtures.exampleID, timestamp: DeliveryFixtures.exampleTimestamp,
                                        body: Data(DeliveryFixtures.exampleBody.utf8), secrets: webhook.secrets)
            == "\(DeliveryFixtures.exampleSignature) \(DeliveryFixtures.exampleOldSignature)")
        #expect(webhook.timeout == .seconds(20))
        #expect(settings.retryPolicy == RetryPolicy(maxAttempts: 5, initialBackoff: .seconds(3), maxBackoff: .seconds(90)))
        #expect(settings.logPath == "/var/log/farelens/alerts.jsonl")
        #expect(settings.gatheringWindow == .milliseconds(250))
        #expect(try AlertDeliverySettings(reader: reader(["alerts.gatherMilliseconds": "0"])).gatheringWindow == .zero)
        let plain = try #require(try AlertDeliverySettings(reader: reader([
            "alerts.webhook.url": "http://127.0.0.1:9000/hook", "alerts.webhook.secrets": DeliveryFixtures.secretText,
        ])).webhook)
        #expect(plain.timeout == .seconds(15))
    }

    @Test("bad values name their key", arguments: [
        (["alerts.webhook.url": "ftp://example.com/x", "alerts.webhook.secrets": DeliveryFixtures.secretText], "alerts.webhook.url"),
        (["alerts.webhook.url": "not a url", "alerts.webhook.secrets": DeliveryFixtures.secretText], "alerts.webhook.url"),
        (["alerts.webhook.url": "https:///nohost", "alerts.webhook.secrets": DeliveryFixtures.secretText], "alerts.webhook.url"),
        (["alerts.webhook.url": "https://example.com/x"], "alerts.webhook.secrets"),
        (["alerts.webhook.url": "https://example.com/x", "alerts.webhook.secrets": "  "], "alerts.webhook.secrets"),
        (["alerts.webhook.url": "https://example.com/x", "alerts.webhook.secrets": "\(DeliveryFixtures.secretText) whsec_AAAA"], "alerts.webhook.secrets"),
        (["alerts.webhook.timeoutSeconds": "0"], "alerts.webhook.timeoutSeconds"),
        (["alerts.webhook.timeoutSeconds": "fast"], "alerts.webhook.timeoutSeconds"),
        (["alerts.webhook.maxAttempts": "0"], "alerts.webhook.maxAttempts"),
        (["alerts.webhook.initialBackoffSeconds": "-1"], "alerts.webhook.initialBackoffSeconds"),
        (["alerts.webhook.initialBackoffSeconds": "60", "alerts.webhook.maxBackoffSeconds": "30"], "alerts.webhook.maxBackoffSeconds"),
        (["alerts.log.path": ""], "alerts.log.path"),
        (["alerts.gatherMilliseconds": "10001"], "alerts.gatherMilliseconds"),
        (["alerts.gatherMilliseconds": "-1"], "alerts.gatherMilliseconds"),
    ])
    func badValues(values: [String: String], key: String) {
        let error = error(values)
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.description.hasPrefix("configuration key \(key): ") == true)
    }

    @Test("a bad secret is named by position and code; the message holds no secret material")
    func badSecretMessage() {
        let error = error([
            "alerts.webhook.url": "https://example.com/x",
            "alerts.webhook.secrets": "\(DeliveryFixtures.secretText) \(String(DeliveryFixtures.oldSecretText.dropFirst(6)))",
        ])
        #expect(error?.message == "secret 2 of 2: webhook-secret-prefix: a webhook secret must start with 'whsec_'")
        for material in DeliveryFixtures.secretMaterial { #expect(error?.description.contains(material) == false) }
    }

    @Test("the secrets are read as secrets: what access reporting sees of them is redacted")
    func accessReportRedacted() throws {
        final class Recorder: AccessReporter {
            let events = Locked<[(key: String, isSecret: Bool, text: String)]>([])
            func report(_ event: AccessEvent) {
                let value = try? event.result.get()
                events.update { $0.append((event.metadata.key.description, value?.isSecret ?? false, "\(String(describing: value))")) }
            }
        }
        let recorder = Recorder()
        var entries: [AbsoluteConfigKey: ConfigValue] = [:]
        entries["alerts.webhook.url"] = ConfigValue(.string("https://example.com/x"), isSecret: false)
        // The provider does not mark it secret: the reader's isSecret must.
        entries["alerts.webhook.secrets"] = ConfigValue(.string(DeliveryFixtures.secretText), isSecret: false)
        let reader = ConfigReader(providers: [InMemoryProvider(values: entries)], accessReporter: recorder)
        #expect(try AlertDeliverySettings(reader: reader.scoped(to: "alerts")).webhook != nil)
        let secrets = recorder.events.get().filter { $0.key.contains("secrets") }
        #expect(!secrets.isEmpty)
        for event in secrets {
            #expect(event.isSecret)
            for material in DeliveryFixtures.secretMaterial { #expect(!event.text.contains(material), "\(event.text)") }
        }
    }
}
