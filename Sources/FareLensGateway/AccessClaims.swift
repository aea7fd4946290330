import JWTKit

/// The claims of an access token (docs/api.md, "Sessions"): whose it is,
/// which sign-in it came from, who issued it for whom, and when it ends.
struct AccessClaims: JWTPayload, Equatable {
    /// The user id.
    var sub: SubjectClaim
    /// The refresh-token family of the sign-in (one per device session).
    var sid: String
    var iss: IssuerClaim
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim

    /// Only the signature is checked here; ``SessionKeys/verify(_:at:)``
    /// checks issuer, audience and times against the gateway's clock.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
