import Foundation
import Crypto
import JWTKit
import SwiftASN1
import X509

/// A certificate chain made like the App Store's — root, intermediate with
/// Apple's intermediate marker OID, leaf with the App Store marker OID — and
/// payloads signed with its leaf as the App Store signs them (ES256, the
/// chain in `x5c`), for the payment tests (docs/payments.md, "Testing").
/// A ``Flaw`` makes the chain or the signature wrong in one way.
public struct AppStoreTestChain: Sendable {
    /// One thing wrong with the chain or the signing.
    public enum Flaw: Sendable, CaseIterable {
        /// A chain the App Store could have made.
        case none
        /// The leaf lacks 1.2.840.113635.100.6.11.1.
        case leafWithoutMarker
        /// The intermediate lacks 1.2.840.113635.100.6.2.1.
        case intermediateWithoutMarker
        /// The leaf expired on 2021-01-01, before any payload is signed.
        case expiredLeaf
        /// A P-384 leaf signing with ES384: a valid chain and signature, but not the App Store's algorithm.
        case es384
    }

    /// The root to trust, DER and PEM.
    public let rootDER: [UInt8]
    public let rootPEM: String
    private let x5c: [String]
    private let leafKeyPEM: String
    private let flaw: Flaw
    private let rootKey: P256.Signing.PrivateKey
    private let root: Certificate

    /// A new chain (new keys, a new root) valid 2020–2040, but for `flaw`.
    public init(flaw: Flaw = .none) throws {
        let rootKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName { CommonName("FareLens Test Root CA - G3") }
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey), notValidBefore: Self.from, notValidAfter: Self.until,
            issuer: rootName, subject: rootName, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            },
            issuerPrivateKey: .init(rootKey))
        try self.init(flaw: flaw, root: root, rootKey: rootKey)
    }

    /// Another chain under the same root, with `flaw`: trusted wherever this one's root is, so only the flaw can refuse it.
    public func with(_ flaw: Flaw) throws -> AppStoreTestChain {
        try AppStoreTestChain(flaw: flaw, root: root, rootKey: rootKey)
    }

    private static let from = Date(timeIntervalSince1970: 1_577_836_800)  // 2020-01-01
    private static let until = Date(timeIntervalSince1970: 2_208_988_800)  // 2040-01-01

    private init(flaw: Flaw, root: Certificate, rootKey: P256.Signing.PrivateKey) throws {
        self.flaw = flaw
        self.root = root
        self.rootKey = rootKey
        let from = Self.from, until = Self.until
        let rootName = root.subject
        let intermediateKey = P256.Signing.PrivateKey()
        let intermediateName = try DistinguishedName { CommonName("FareLens Test Worldwide Developer Relations") }
        var intermediateExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
            Critical(KeyUsage(keyCertSign: true, cRLSign: true))
        }
        if flaw != .intermediateWithoutMarker {
            try intermediateExtensions.append(Certificate.Extension(oid: [1, 2, 840, 113_635, 100, 6, 2, 1], critical: false, value: [0x05, 0x00]))
        }
        let intermediate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey), notValidBefore: from, notValidAfter: until,
            issuer: rootName, subject: intermediateName, signatureAlgorithm: .ecdsaWithSHA256, extensions: intermediateExtensions,
            issuerPrivateKey: .init(rootKey))
        var leafExtensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
            Critical(KeyUsage(digitalSignature: true))
        }
        if flaw != .leafWithoutMarker {
            try leafExtensions.append(Certificate.Extension(oid: [1, 2, 840, 113_635, 100, 6, 11, 1], critical: false, value: [0x05, 0x00]))
        }
        let leafPublicKey: Certificate.PublicKey
        if flaw == .es384 {
            let key = P384.Signing.PrivateKey()
            leafPublicKey = .init(key.publicKey)
            leafKeyPEM = key.pemRepresentation
        } else {
            let key = P256.Signing.PrivateKey()
            leafPublicKey = .init(key.publicKey)
            leafKeyPEM = key.pemRepresentation
        }
        let leaf = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: leafPublicKey, notValidBefore: from,
            notValidAfter: flaw == .expiredLeaf ? Date(timeIntervalSince1970: 1_609_459_200) : until,
            issuer: intermediateName, subject: try DistinguishedName { CommonName("FareLens Test Mac App Store and iTunes Store Receipt Signing") },
            signatureAlgorithm: .ecdsaWithSHA256, extensions: leafExtensions, issuerPrivateKey: .init(intermediateKey))
        func der(_ certificate: Certificate) throws -> [UInt8] {
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return serializer.serializedBytes
        }
        rootDER = try der(root)
        rootPEM = try root.serializeAsPEM().pemString
        // jwt-kit takes the chain as PEM and writes it into the header as base64 DER.
        x5c = try [leaf, intermediate, root].map { try $0.serializeAsPEM().pemString }
    }

    /// `payload` signed with the leaf, the chain in `x5c`: ES256, or ES384 for ``Flaw/es384``.
    public func sign(_ payload: some Encodable & Sendable) async throws -> String {
        let keys = JWTKeyCollection()
        if flaw == .es384 {
            await keys.add(ecdsa: try ES384PrivateKey(pem: leafKeyPEM))
        } else {
            await keys.add(ecdsa: try ES256PrivateKey(pem: leafKeyPEM))
        }
        return try await keys.sign(SignedPayload(body: payload), header: ["x5c": .array(x5c.map { .string($0) })])
    }

    /// `jws` with its payload replaced by `payload`'s JSON and its signature kept: a forgery.
    public static func tampered(_ jws: String, with payload: some Encodable) throws -> String {
        let parts = jws.split(separator: ".")
        let body = try JSONEncoder().encode(payload).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        return "\(parts[0]).\(body).\(parts[2])"
    }

    /// Any encodable as a JWT payload (the App Store's have no claims to check).
    private struct SignedPayload<Body: Encodable & Sendable>: JWTPayload {
        let body: Body
        func encode(to encoder: any Encoder) throws { try body.encode(to: encoder) }
        init(body: Body) { self.body = body }
        init(from decoder: any Decoder) throws { throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "sign-only")) }
        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }
}
