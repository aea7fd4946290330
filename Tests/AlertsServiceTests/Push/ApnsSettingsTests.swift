@testable import AlertsService
import Configuration
import Crypto
import Foundation
import Testing

/// `alerts.apns.*`: each mistake stops the node naming its key, never repeating the key's contents.
@Suite("APNs settings")
struct ApnsSettingsTests {
    func reader(_ values: [String: String]) -> ConfigReader {
        var entries: [AbsoluteConfigKey: ConfigValue] = [:]
        for (key, value) in values { entries[AbsoluteConfigKey(stringLiteral: key)] = ConfigValue(.string(value), isSecret: false) }
        return ConfigReader(providers: [InMemoryProvider(values: entries)]).scoped(to: "alerts")
    }

    /// A directory with a P-256 `.p8`, a certificate-less PEM and a text file.
    static func files() throws -> (key: String, notAKey: String, directory: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-apns-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let key = directory + "/AuthKey.p8", notAKey = directory + "/notes.txt"
        try P256.Signing.PrivateKey().pemRepresentation.write(toFile: key, atomically: true, encoding: .utf8)
        try "not a key".write(toFile: notAKey, atomically: true, encoding: .utf8)
        return (key, notAKey, directory)
    }

    func complete(_ key: String) -> [String: String] {
        ["alerts.apns.keyPath": key, "alerts.apns.keyID": "ABC123DEFG", "alerts.apns.teamID": "TEAM123456", "alerts.apns.topic": "app.farelens.ios"]
    }

    @Test("absent: no push channel; complete: the key read, each device's own gateway, a 10 s bound")
    func readsKeys() throws {
        #expect(try AlertDeliverySettings(reader: reader([:])).apns == nil)
        let files = try Self.files()
        let settings = try #require(try AlertDeliverySettings(reader: reader(complete(files.key))).apns)
        #expect(settings.keyPEM.contains("BEGIN PRIVATE KEY") && settings.keyID == "ABC123DEFG" && settings.teamID == "TEAM123456")
        #expect(settings.baseURL == nil && settings.trustRootsPEM == nil && settings.timeout == .seconds(10))
        var withStub = complete(files.key)
        withStub["alerts.apns.baseURL"] = "https://127.0.0.1:8443/"
        withStub["alerts.apns.timeoutSeconds"] = "3"
        let stub = try #require(try AlertDeliverySettings(reader: reader(withStub)).apns)
        #expect(stub.baseURL == "https://127.0.0.1:8443" && stub.timeout == .seconds(3))
    }

    @Test("each mistake names its key, and no message repeats the key file's contents", arguments: [
        ("alerts.apns.topic", "alerts.apns.keyPath"),
        ("alerts.apns.timeoutSeconds", "alerts.apns.keyPath"),
        ("missing keyID", "alerts.apns.keyID"),
        ("bad keyID", "alerts.apns.keyID"),
        ("bad teamID", "alerts.apns.teamID"),
        ("bad topic", "alerts.apns.topic"),
        ("plain http", "alerts.apns.baseURL"),
        ("a path in the URL", "alerts.apns.baseURL"),
        ("not a key", "alerts.apns.keyPath"),
        ("no such file", "alerts.apns.keyPath"),
        ("roots not PEM", "alerts.apns.trustRoots"),
        ("timeout 0", "alerts.apns.timeoutSeconds"),
    ])
    func mistakes(mistake: String, key: String) throws {
        let files = try Self.files()
        var values = complete(files.key)
        switch mistake {
        case "alerts.apns.topic": values = ["alerts.apns.topic": "app.farelens.ios"]
        case "alerts.apns.timeoutSeconds": values = ["alerts.apns.timeoutSeconds": "5"]
        case "missing keyID": values["alerts.apns.keyID"] = nil
        case "bad keyID": values["alerts.apns.keyID"] = "abc"
        case "bad teamID": values["alerts.apns.teamID"] = "TEAM 12345"
        case "bad topic": values["alerts.apns.topic"] = "farelens"
        case "plain http": values["alerts.apns.baseURL"] = "http://127.0.0.1:8443"
        case "a path in the URL": values["alerts.apns.baseURL"] = "https://api.push.apple.com/3/device"
        case "not a key": values["alerts.apns.keyPath"] = files.notAKey
        case "no such file": values["alerts.apns.keyPath"] = files.directory + "/missing.p8"
        case "roots not PEM": values["alerts.apns.trustRoots"] = files.notAKey
        case "timeout 0": values["alerts.apns.timeoutSeconds"] = "0"
        default: Issue.record("unknown case \(mistake)")
        }
        do {
            _ = try AlertDeliverySettings(reader: reader(values))
            Issue.record("\(mistake) was accepted")
        } catch {
            #expect(error.key == key, "\(mistake): \(error)")
            let keyText = try String(contentsOfFile: files.key, encoding: .utf8)
            #expect(!error.description.contains(keyText.split(separator: "\n")[1]), "the message repeats the key")
        }
    }

    @Test("a PEM private key that is not P-256 is refused by the channel naming alerts.apns.keyPath")
    func notP256() throws {
        let files = try Self.files()
        var settings = try #require(try AlertDeliverySettings(reader: reader(complete(files.key))).apns)
        settings.keyPEM = P384.Signing.PrivateKey().pemRepresentation
        #expect { try ApnsChannel(settings: settings) } throws: { ($0 as? AlertDeliverySettingsError)?.key == "alerts.apns.keyPath" }
    }
}
