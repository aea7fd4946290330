import FareLensServiceKit
import NIOSSL

/// The gateway's TLS (swift-nio-ssl): TLS 1.3 only, from the PEM files
/// `gateway.tls.certificateFile` (the chain, leaf first) and
/// `gateway.tls.keyFile`. Read when the node starts, so a missing or
/// unreadable file stops start-up naming its key.
enum GatewayTLS {
    /// The server configuration, or nil when TLS is not configured.
    static func configuration(_ settings: GatewaySettings) throws(ConfigurationError) -> TLSConfiguration? {
        guard let certificateFile = settings.tlsCertificateFile, let keyFile = settings.tlsKeyFile else { return nil }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificateFile)
        } catch {
            throw .invalid(key: "gateway.tls.certificateFile", value: certificateFile, expected: "a readable PEM file of the certificate chain")
        }
        guard !chain.isEmpty else {
            throw .invalid(key: "gateway.tls.certificateFile", value: certificateFile, expected: "a PEM file holding at least one certificate")
        }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: keyFile, format: .pem)
        } catch {
            throw .invalid(key: "gateway.tls.keyFile", value: keyFile, expected: "a readable PEM file of the certificate's private key")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv13
        configuration.applicationProtocols = ["http/1.1"]
        return configuration
    }
}
