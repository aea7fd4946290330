public import FareLensBus

extension GetUserRequest {
    /// The user `userID` as the subscription service knows them, asked over
    /// `bus`: how services other than subscription check a user id they are
    /// given (and read its tier, time zone and entitlements).
    ///
    /// - Returns: nil when subscription answers `unknown-user`.
    /// - Throws: the ``BusError`` when subscription could not be asked.
    public static func user(_ userID: String, on bus: MessageBus, parent: RequestContext? = nil) async throws(BusError) -> GetUserResponse? {
        var request = GetUserRequest()
        request.userID = userID
        do {
            return try await bus.request(request, parent: parent)
        } catch {
            if error.kind == .remote, error.remoteCode == "unknown-user" { return nil }
            throw error
        }
    }
}
