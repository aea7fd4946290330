import AsyncHTTPClient
import Crypto
import FareLensTesting
import Foundation
import NIOCore
import NIOSSL
import Testing

/// A self-signed certificate, written as PEM files, and a client that trusts it.
struct TestCertificate {
    let certificateFile: String
    let keyFile: String
    let certificate: NIOSSLCertificate

    init(directory: String) throws {
        let made = try SelfSignedCertificate(commonName: "farelens test gateway")
        let key = made.key
        let pem = made.certificatePEM
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        certificateFile = directory + "/gateway-cert.pem"
        keyFile = directory + "/gateway-key.pem"
        try pem.write(toFile: certificateFile, atomically: true, encoding: .utf8)
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        self.certificate = try NIOSSLCertificate(bytes: Array(pem.utf8), format: .pem)
    }

    /// A client trusting only this certificate, allowed up to `maximum`.
    func client(maximum: TLSVersion = .tlsv13) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.trustRoots = .certificates([certificate])
        // The chain is checked against this one root; the name is not (the certificate names no address).
        tls.certificateVerification = .noHostnameVerification
        tls.maximumTLSVersion = maximum
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: .init(tlsConfiguration: tls))
    }
}

@Suite("Gateway: TLS 1.3", .serialized)
struct GatewayTLSTests {
    @Test("with a certificate and key the API answers over TLS 1.3 only: a TLS 1.2 client and a plain-HTTP client get nothing")
    func tls13() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("farelens-tls-\(UUID().uuidString)").path
        let certificate = try TestCertificate(directory: directory)
        let settings = ["gateway.tls.certificateFile": certificate.certificateFile, "gateway.tls.keyFile": certificate.keyFile]
        try await GatewayHarness.with(.oneProcess, settings: settings) { _, api in
            let modern = certificate.client()
            let old = certificate.client(maximum: .tlsv12)
            do {
                let response = try await modern.execute(HTTPClientRequest(url: "https://127.0.0.1:\(api.port)/healthz"), timeout: .seconds(20))
                #expect(response.status == .ok)
                await #expect(throws: (any Error).self) {
                    _ = try await old.execute(HTTPClientRequest(url: "https://127.0.0.1:\(api.port)/healthz"), timeout: .seconds(20))
                }
                await #expect(throws: (any Error).self) {
                    let plain = try await APIClient.client.execute(HTTPClientRequest(url: "http://127.0.0.1:\(api.port)/healthz"), timeout: .seconds(5))
                    // A TLS server answers a plaintext request with no HTTP at all; a response here would be the failure.
                    Issue.record("plain HTTP was answered \(plain.status)")
                }
            } catch {
                try? await modern.shutdown()
                try? await old.shutdown()
                throw error
            }
            try await modern.shutdown()
            try await old.shutdown()
        }
    }

    @Test("a certificate without its key, or an unreadable file, stops the node naming the key")
    func badConfiguration() async throws {
        let halfConfigured = try? GatewayHarness(shape: .oneProcess, settings: ["gateway.tls.certificateFile": "/nonexistent/cert.pem"])
        let harness = try #require(halfConfigured)
        let half = await #expect(throws: (any Error).self) { try await harness.start() }
        #expect("\(half.map { "\($0)" } ?? "")".contains("gateway.tls.keyFile"))
        try? await harness.stop()
        let unreadable = try GatewayHarness(shape: .oneProcess, settings: ["gateway.tls.certificateFile": "/nonexistent/cert.pem", "gateway.tls.keyFile": "/nonexistent/key.pem"])
        let missing = await #expect(throws: (any Error).self) { try await unreadable.start() }
        #expect("\(missing.map { "\($0)" } ?? "")".contains("gateway.tls.certificateFile"))
        try? await unreadable.stop()
    }
}
