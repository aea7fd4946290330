import SwiftASN1
import X509

/// The part of Apple's chain rule a root alone does not give: Apple's root
/// also issues certificates that are not the App Store's, so a payload's
/// chain must be exactly leaf → intermediate → root with the leaf carrying
/// the App Store receipt-signing marker (1.2.840.113635.100.6.11.1) and the
/// intermediate Apple's WWDR intermediate marker (1.2.840.113635.100.6.2.1),
/// as Apple's own App Store Server Library checks.
struct AppleMarkerPolicy: VerifierPolicy {
    /// On the leaf: "App Store receipt signing".
    static let leafMarker: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 11, 1]
    /// On the intermediate: "Apple Worldwide Developer Relations".
    static let intermediateMarker: ASN1ObjectIdentifier = [1, 2, 840, 113_635, 100, 6, 2, 1]

    /// The markers are checked for presence; if a certificate marks them
    /// critical, this policy is what understands them.
    var verifyingCriticalExtensions: [ASN1ObjectIdentifier] { [Self.leafMarker, Self.intermediateMarker] }

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        guard chain.count == 3 else {
            return .failsToMeetPolicy(reason: "the chain has \(chain.count) certificates; the App Store signs with leaf, intermediate and root")
        }
        guard chain[0].extensions.contains(where: { $0.oid == Self.leafMarker }) else {
            return .failsToMeetPolicy(reason: "the signing certificate lacks Apple's App Store marker OID 1.2.840.113635.100.6.11.1")
        }
        guard chain[1].extensions.contains(where: { $0.oid == Self.intermediateMarker }) else {
            return .failsToMeetPolicy(reason: "the intermediate certificate lacks Apple's marker OID 1.2.840.113635.100.6.2.1")
        }
        return .meetsPolicy
    }
}
