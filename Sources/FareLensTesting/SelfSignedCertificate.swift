public import Crypto
import Foundation
import SwiftASN1
import X509

/// A self-signed P-256 certificate for a local TLS server in tests (the
/// gateway's TLS tests, the APNs stub), valid from an hour ago for a day,
/// naming `localhost` and 127.0.0.1.
public struct SelfSignedCertificate: Sendable {
    /// The certificate in PEM, to serve and to trust.
    public let certificatePEM: String
    /// Its private key.
    public let key: P256.Signing.PrivateKey

    /// A new key and certificate named `commonName`.
    public init(commonName: String) throws {
        key = P256.Signing.PrivateKey()
        let name = try DistinguishedName { CommonName(commonName) }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: .init(key.publicKey),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(86_400), issuer: name, subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                SubjectAlternativeNames([.dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1]))])
            },
            issuerPrivateKey: .init(key))
        certificatePEM = try certificate.serializeAsPEM().pemString
    }
}
