import FareLensMessages

/// The people the demo seeds: four travellers on Free, trial and Pro in four
/// time zones, each with preferred airports and watchlists on routes the
/// bundled real fare data covers (so their simulated prices are calibrated).
/// The emails use the reserved `example.com` domain: nobody real.
struct DemoTraveller: Sendable {
    /// A watched route.
    struct Watch: Sendable {
        let origin: String
        let destination: String
        /// Trip length in days; nil for one-way.
        let tripDays: ClosedRange<Int32>?
    }

    let name: String
    let email: String
    let city: String
    let timeZone: String
    let homeAirport: String
    let preferred: [(code: String, weight: Double)]
    /// `free`, `trial` (what a new user gets) or `pro`.
    let tier: Tier
    let watches: [Watch]

    /// The cast, in the order they are created.
    static let cast: [DemoTraveller] = [
        DemoTraveller(
            name: "Maya", email: "maya@example.com", city: "New York", timeZone: "America/New_York", homeAirport: "JFK",
            preferred: [("NYC", 1)], tier: .pro,
            watches: [Watch(origin: "NYC", destination: "CHI", tripDays: 3 ... 7), Watch(origin: "NYC", destination: "ORL", tripDays: 5 ... 10)]
        ),
        DemoTraveller(
            name: "Oliver", email: "oliver@example.com", city: "London", timeZone: "Europe/London", homeAirport: "LHR",
            preferred: [("LON", 1)], tier: .free,
            watches: [Watch(origin: "LON", destination: "BCN", tripDays: 2 ... 5), Watch(origin: "LON", destination: "EDI", tripDays: nil)]
        ),
        DemoTraveller(
            name: "Priya", email: "priya@example.com", city: "Kolkata", timeZone: "Asia/Kolkata", homeAirport: "CCU",
            preferred: [("CCU", 1)], tier: .trial,
            watches: [Watch(origin: "CCU", destination: "MAA", tripDays: 4 ... 8)]
        ),
        DemoTraveller(
            name: "Sam", email: "sam@example.com", city: "Sydney", timeZone: "Australia/Sydney", homeAirport: "SYD",
            preferred: [("SYD", 1)], tier: .free,
            watches: [Watch(origin: "SYD", destination: "MEL", tripDays: nil), Watch(origin: "SYD", destination: "OOL", tripDays: 3 ... 6)]
        ),
    ]

    var createRequest: CreateUserRequest {
        var request = CreateUserRequest()
        request.email = email
        request.timeZone = timeZone
        request.homeAirport = homeAirport
        request.preferredAirports = preferred.map { code, weight in
            var airport = PreferredAirport()
            airport.code = code
            airport.weight = weight
            return airport
        }
        return request
    }

    func watchRequests(userID: String) -> [CreateWatchlistRequest] {
        watches.map { watch in
            var request = CreateWatchlistRequest()
            request.userID = userID
            request.origin = watch.origin
            request.destination = watch.destination
            var flexible = FlexibleDates()
            if let days = watch.tripDays { (flexible.minTripDays, flexible.maxTripDays) = (days.lowerBound, days.upperBound) }
            request.dates.flexible = flexible
            request.alertMode = .priceDropAndDigest
            return request
        }
    }
}
