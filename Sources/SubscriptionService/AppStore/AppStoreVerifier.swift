import Foundation
import JWTKit

/// Checks what the App Store signs (docs/payments.md, "Verification"), with
/// jwt-kit's x5c verifier and swift-certificates — no crypto of our own:
///
/// 1. the JWS parses and its header's `alg` is ES256 (nothing else Apple uses is accepted);
/// 2. its `x5c` chain leads to a configured root, is leaf → intermediate → root
///    with Apple's marker OIDs (``AppleMarkerPolicy``), and every certificate
///    was valid at the payload's own `signedDate`;
/// 3. the signature verifies with the leaf's key;
/// 4. the payload names this app (`bundleId`), this environment, and in
///    production this app's Apple id.
///
/// A notification's nested `signedTransactionInfo` and `signedRenewalInfo`
/// are checked the same way. Each failure is a named ``SubscriptionError``.
struct AppStoreVerifier: Sendable {
    let settings: AppStoreSettings
    private let x5c: X5CVerifier

    init(settings: AppStoreSettings) throws {
        self.settings = settings
        x5c = try X5CVerifier(rootCertificates: settings.roots)
    }

    /// A notification (`signedPayload`) with its nested payloads.
    func notification(_ signedPayload: String) async throws(SubscriptionError) -> VerifiedNotification {
        let field = "signed_payload"
        let payload = try await verify(signedPayload, as: NotificationPayload.self, field: field)
        guard let data = payload.data else { throw .malformedSignedPayload(field, "has no data (a summary-only notification is not one this server takes)") }
        try checkApp(bundleID: data.bundleId, environment: data.environment, field: field)
        if settings.environment == .production, let expected = settings.appAppleID, data.appAppleId != expected {
            throw .wrongAppAppleID(got: data.appAppleId, expected: expected)
        }
        var verified = VerifiedNotification(payload: payload)
        if let info = data.signedTransactionInfo {
            let transaction = try await verify(info, as: TransactionPayload.self, field: "signedTransactionInfo")
            try checkApp(bundleID: transaction.bundleId, environment: transaction.environment, field: "signedTransactionInfo")
            verified.transaction = transaction
        }
        if let info = data.signedRenewalInfo {
            let renewal = try await verify(info, as: RenewalInfoPayload.self, field: "signedRenewalInfo")
            try checkApp(bundleID: nil, environment: renewal.environment, field: "signedRenewalInfo")
            verified.renewal = renewal
        }
        return verified
    }

    /// A StoreKit 2 transaction (`jwsRepresentation`).
    func transaction(_ jws: String, field: String) async throws(SubscriptionError) -> TransactionPayload {
        let transaction = try await verify(jws, as: TransactionPayload.self, field: field)
        try checkApp(bundleID: transaction.bundleId, environment: transaction.environment, field: field)
        return transaction
    }

    /// Steps 1–3 for one JWS.
    private func verify<Payload: JWTPayload>(_ jws: String, as type: Payload.Type, field: String) async throws(SubscriptionError) -> Payload {
        let header: JWTHeader
        let signedAt: Date
        do {
            let parsed = try DefaultJWTParser().parse(Array(jws.utf8), as: SignedDatePayload.self)
            header = parsed.header
            signedAt = Date(timeIntervalSince1970: Double(parsed.payload.signedDate) / 1000)
        } catch {
            throw .malformedSignedPayload(field, "is not a JWS with a signedDate (\(Self.reason(error)))")
        }
        guard header.alg == "ES256" else {
            throw .untrustedSignature(field, "alg '\(header.alg ?? "none")' is not ES256, the only algorithm the App Store signs with")
        }
        do {
            return try await x5c.verifyJWS(Array(jws.utf8), as: Payload.self, jsonDecoder: .defaultForJWT, validationTime: .fixed(signedAt)) {
                AppleMarkerPolicy()
            }
        } catch let error as JWTError where error.errorType == .malformedToken {
            throw .malformedSignedPayload(field, "its payload is not the App Store's shape (\(Self.reason(error)))")
        } catch {
            throw .untrustedSignature(field, Self.reason(error))
        }
    }

    /// Step 4: `nil` skips the bundle check (renewal info carries none).
    private func checkApp(bundleID: String?, environment: String?, field: String) throws(SubscriptionError) {
        if let bundleID, bundleID != settings.bundleID {
            throw .wrongBundleID(field, got: bundleID, expected: settings.bundleID)
        }
        guard environment == settings.environment.rawValue else {
            throw .wrongEnvironment(field, got: environment ?? "none", expected: settings.environment.rawValue)
        }
    }

    /// A short reason from jwt-kit or swift-certificates, without the token.
    private static func reason(_ error: any Error) -> String {
        guard let jwt = error as? JWTError else { return String(describing: error) }
        switch jwt.errorType {
        case .signatureVerificationFailed: return "the signature does not verify with the signing certificate's key"
        case .missingX5CHeader: return "the header has no x5c certificate chain"
        case .invalidX5CChain: return "the x5c chain is not trusted: \(jwt.reason ?? "")"
        default: return jwt.reason ?? jwt.errorType.description
        }
    }
}
