import Configuration
import Crypto
import FareLensMessages
import FareLensServiceKit
import FareLensTesting
import Foundation
import Testing
@testable import SubscriptionService

@Suite("App Store settings (appstore.*)")
struct AppStoreSettingsTests {
    func reader(_ values: [String: String]) -> ConfigReader {
        let entries = Dictionary(uniqueKeysWithValues: values.map { (AbsoluteConfigKey(stringLiteral: "appstore." + $0.key), ConfigValue(.string($0.value), isSecret: false)) })
        return ConfigReader(providers: [InMemoryProvider(values: entries)]).scoped(to: "appstore")
    }

    @Test("the shipped root is Apple Root CA - G3: its SHA-256 is the one Apple publishes, and it is the default root")
    func bundledRootIsApples() throws {
        let url = try #require(AppStoreSettings.appleRootG3URL)
        let digest = SHA256.hash(data: try Data(contentsOf: url)).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(digest == "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79")
        let settings = try #require(try AppStoreSettings.read(reader(["bundleId": "com.farelens.app", "appAppleId": "1234567890"])))
        #expect(settings.roots == [try AppStoreSettings.appleRootG3()])
        #expect(settings.environment == .production && settings.appAppleID == 1_234_567_890)
        #expect(settings.products == ["com.farelens.pro.monthly": .monthly, "com.farelens.pro.annual": .annual])
    }

    @Test("no bundle id: no App Store; a production setup without its Apple id, an unknown environment, an unreadable root, or one product id for both is refused naming its key")
    func badSettings() throws {
        #expect(try AppStoreSettings.read(reader([:])) == nil)
        func key(_ values: [String: String]) -> String? {
            do {
                _ = try AppStoreSettings.read(reader(values))
                return nil
            } catch let error as ConfigurationError {
                return error.key
            } catch {
                return "\(error)"
            }
        }
        #expect(key(["bundleId": "com.farelens.app"]) == "appstore.appAppleId")
        #expect(key(["bundleId": "com.farelens.app", "environment": "Staging"]) == "appstore.environment")
        #expect(key(["bundleId": "com.farelens.app", "environment": "Sandbox", "appAppleId": "-4"]) == "appstore.appAppleId")
        #expect(key(["bundleId": "com.farelens.app", "environment": "Sandbox", "rootCertificates": "/nonexistent/root.cer"]) == "appstore.rootCertificates")
        #expect(key(["bundleId": "com.farelens.app", "environment": "Sandbox", "annualProductId": "com.farelens.pro.monthly"]) == "appstore.annualProductId")
        #expect(key(["bundleId": "com.farelens.app", "environment": "Sandbox"]) == nil, "a sandbox needs no Apple id")
    }

    @Test("roots are read from DER and PEM files, several at once")
    func rootFiles() throws {
        let first = try AppStoreTestChain(), second = try AppStoreTestChain()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appstore-roots-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let der = directory.appendingPathComponent("first.cer"), pem = directory.appendingPathComponent("second.pem")
        try Data(first.rootDER).write(to: der)
        try Data(second.rootPEM.utf8).write(to: pem)
        let settings = try #require(try AppStoreSettings.read(reader(["bundleId": "b.c", "environment": "Sandbox", "rootCertificates": "\(der.path), \(pem.path)"])))
        #expect(settings.roots.count == 2)
        #expect(settings.roots[0] == (try .init(derEncoded: first.rootDER)))
        #expect(settings.roots[1] == (try .init(derEncoded: second.rootDER)))
    }
}
