@testable import AlertsService
import Crypto
import Foundation
import Testing

@Suite("Webhook secrets and signatures")
struct WebhookSecretTests {
    @Test("a whsec_ secret parses to its decoded key")
    func parses() throws {
        let secret = try WebhookSecret(DeliveryFixtures.secretText)
        #expect(secret.byteCount == 32)
        #expect(secret.key == SymmetricKey(data: Data(0 ..< 32)))
        #expect(try WebhookSecret("  " + DeliveryFixtures.secretText + "\n").byteCount == 32)
        // Unpadded base64 is accepted too.
        let unpadded = "whsec_" + Data(repeating: 1, count: 25).base64EncodedString().replacingOccurrences(of: "=", with: "")
        #expect(try WebhookSecret(unpadded).byteCount == 25)
    }

    @Test("malformed secrets are refused by code, and no message repeats the text", arguments: [
        ("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "webhook-secret-prefix"),
        ("WHSEC_AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=", "webhook-secret-prefix"),
        ("", "webhook-secret-prefix"),
        ("whsec_", "webhook-secret-base64"),
        ("whsec_not*base64!", "webhook-secret-base64"),
        ("whsec_" + Data(repeating: 9, count: 23).base64EncodedString(), "webhook-secret-short"),
        ("whsec_" + Data(repeating: 9, count: 65).base64EncodedString(), "webhook-secret-long"),
    ])
    func refused(text: String, code: String) {
        let error = #expect(throws: WebhookSecretError.self) { try WebhookSecret(text) }
        #expect(error?.code == code)
        let body = String(text.dropFirst(6))
        if body.count > 4 { #expect(error?.description.contains(body) == false) }
    }

    @Test("the 24- and 64-byte limits are inclusive")
    func limits() throws {
        #expect(try WebhookSecret("whsec_" + Data(repeating: 3, count: 24).base64EncodedString()).byteCount == 24)
        #expect(try WebhookSecret("whsec_" + Data(repeating: 3, count: 64).base64EncodedString()).byteCount == 64)
    }

    @Test("description, debugDescription, interpolation and dump never show the key")
    func redacted() throws {
        let secret = try WebhookSecret(DeliveryFixtures.secretText)
        var dumped = ""
        dump(secret, to: &dumped)
        var dumpedSettings = ""
        let settings = WebhookSettings(url: "https://example.com/hook", secrets: [secret], timeout: .seconds(15))
        dump(settings, to: &dumpedSettings)
        let texts = [
            secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret), "\([secret])", dumped,
            "\(settings)", String(reflecting: settings), dumpedSettings,
        ]
        #expect(secret.description == "whsec_…(redacted, 32 bytes)")
        for text in texts {
            for material in DeliveryFixtures.secretMaterial { #expect(!text.contains(material), "\(text)") }
            #expect(!text.contains("AAECAwQF"), "\(text)")
        }
    }

    @Test("the documented example: signed content and signature, as Python computed them")
    func documentedExample() throws {
        let body = Data(DeliveryFixtures.exampleBody.utf8)
        let content = WebhookSignature.signedContent(id: DeliveryFixtures.exampleID, timestamp: DeliveryFixtures.exampleTimestamp, body: body)
        #expect(String(decoding: content, as: UTF8.self) == "alert_4f1c9a2e7b.1767225600." + DeliveryFixtures.exampleBody)
        let header = WebhookSignature.header(
            id: DeliveryFixtures.exampleID, timestamp: DeliveryFixtures.exampleTimestamp, body: body,
            secrets: try DeliveryFixtures.secrets([DeliveryFixtures.secretText, DeliveryFixtures.oldSecretText]))
        #expect(header == "\(DeliveryFixtures.exampleSignature) \(DeliveryFixtures.exampleOldSignature)")
    }

    @Test("docs/webhooks.md carries the same example values the tests check")
    func docsAgree() throws {
        let docs = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/webhooks.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        for value in [
            DeliveryFixtures.secretText, DeliveryFixtures.exampleID, String(DeliveryFixtures.exampleTimestamp),
            DeliveryFixtures.exampleBody, DeliveryFixtures.exampleSignature, DeliveryFixtures.oldSecretText, DeliveryFixtures.exampleOldSignature,
        ] {
            #expect(text.contains(value), "docs/webhooks.md lacks \(value)")
        }
    }
}

@Suite("Webhook verifier")
struct WebhookVerifierTests {
    let now = Date(timeIntervalSince1970: 1_767_225_600)
    let body = Data(DeliveryFixtures.exampleBody.utf8)

    func verify(
        _ verifier: WebhookVerifier, id: String = DeliveryFixtures.exampleID, timestamp: String = "1767225600",
        signature: String = DeliveryFixtures.exampleSignature, body: Data? = nil, now: Date? = nil
    ) -> String? {
        do {
            try verifier.verify(id: id, timestamp: timestamp, signature: signature, body: body ?? self.body, now: now ?? self.now)
            return nil
        } catch {
            return error.code
        }
    }

    @Test("accepts the documented example, and any matching v1 among several items")
    func accepts() throws {
        let verifier = WebhookVerifier(secrets: try DeliveryFixtures.secrets())
        #expect(verify(verifier) == nil)
        #expect(verify(verifier, signature: "v1a,AAAA v1,bm90LWl0 \(DeliveryFixtures.exampleSignature)") == nil)
        let old = WebhookVerifier(secrets: try DeliveryFixtures.secrets([DeliveryFixtures.oldSecretText]))
        #expect(verify(old, signature: "\(DeliveryFixtures.exampleSignature) \(DeliveryFixtures.exampleOldSignature)") == nil)
        let both = WebhookVerifier(secrets: try DeliveryFixtures.secrets([DeliveryFixtures.oldSecretText, DeliveryFixtures.secretText]))
        #expect(verify(both) == nil)
    }

    @Test("rejects changed content, unknown versions and malformed items")
    func rejectsSignatures() throws {
        let verifier = WebhookVerifier(secrets: try DeliveryFixtures.secrets())
        #expect(verify(verifier, body: Data((DeliveryFixtures.exampleBody + " ").utf8)) == "webhook-signature-mismatch")
        #expect(verify(verifier, id: "alert_other") == "webhook-signature-mismatch")
        #expect(verify(verifier, timestamp: "1767225601", now: now) == "webhook-signature-mismatch")
        #expect(verify(verifier, signature: "v2," + DeliveryFixtures.exampleSignature.dropFirst(3)) == "webhook-signature-mismatch")
        #expect(verify(verifier, signature: "") == "webhook-signature-mismatch")
        #expect(verify(verifier, signature: "v1,%%%") == "webhook-signature-mismatch")
        #expect(verify(verifier, signature: DeliveryFixtures.exampleOldSignature) == "webhook-signature-mismatch")
    }

    @Test("timestamps: five minutes either way by default, then too old or too new; non-digits invalid")
    func timestamps() throws {
        let verifier = WebhookVerifier(secrets: try DeliveryFixtures.secrets())
        #expect(verify(verifier, now: now.addingTimeInterval(300)) == nil)
        #expect(verify(verifier, now: now.addingTimeInterval(-300)) == nil)
        #expect(verify(verifier, now: now.addingTimeInterval(301)) == "webhook-timestamp-too-old")
        #expect(verify(verifier, now: now.addingTimeInterval(-301)) == "webhook-timestamp-too-new")
        for bad in ["", "-1767225600", "1767225600.0", " 1767225600", "1e9", "17672256000000000000000"] {
            #expect(verify(verifier, timestamp: bad) == "webhook-timestamp-invalid", "\(bad)")
        }
        let strict = WebhookVerifier(secrets: try DeliveryFixtures.secrets(), tolerance: .seconds(10))
        #expect(verify(strict, now: now.addingTimeInterval(11)) == "webhook-timestamp-too-old")
    }
}
