import FareLensMessages

extension UserPreferencesChanged {
    /// The settings of a user as subscription answered them (`GetUser`),
    /// stated as the announcement subscription would publish, at
    /// `atUnixMs`.
    init(announcing answer: GetUserResponse, atUnixMs: Int64) {
        self.init()
        userID = answer.user.userID
        timeZone = answer.user.timeZone
        homeAirport = answer.user.homeAirport
        preferredAirports = answer.user.preferredAirports
        if answer.user.hasQuietHours { quietHours = answer.user.quietHours }
        tier = answer.user.tier
        entitlements = answer.entitlements
        currency = answer.user.currency
        announced = true
        self.atUnixMs = atUnixMs
    }
}
