public import FareLensServiceKit
public import FareLensMessages
public import Foundation

/// The embedded default provider: a deterministic simulated fare market
/// calibrated on real observed fares (``MarketPricing``). Every offer says
/// `simulated = true`; sellers are named `simulated-…` and links point at
/// the reserved `.invalid` domain, so nothing can pass for a real fare.
/// Prices are in the currency of the outbound origin's country
/// (``MarketCurrencies``), converted from the euro calibration.
public struct SimulatedMarket: FareProvider {
    public let name = "simulated"
    public let isLive = false
    let directory: AirportDirectory
    let pricing: MarketPricing
    let itineraries: SimulatedItineraries
    let currencies: MarketCurrencies
    let clock: @Sendable () -> Date

    /// The sellers quoting every simulated itinerary, with their markup range.
    static let sellers: [(name: String, markup: ClosedRange<Double>)] = [
        ("simulated-airline", 0.00 ... 0.00),
        ("simulated-agency-a", -0.03 ... 0.06),
        ("simulated-agency-b", 0.01 ... 0.12),
    ]

    /// A market over `directory` and the bundled fare data.
    ///
    /// - Parameters:
    ///   - seed: the same seed gives the same fares.
    ///   - clock: "today" for the booking window and daily movement.
    public init(directory: AirportDirectory, seed: UInt64, clock: @escaping @Sendable () -> Date) throws(BundledDataError) {
        try self.init(directory: directory, fares: RouteFareTable.bundled(), seed: seed, clock: clock)
    }

    /// A market over `directory` and an already loaded fare table (the
    /// service loads it once and shares it with the sweep).
    public init(directory: AirportDirectory, fares: RouteFareTable, seed: UInt64, clock: @escaping @Sendable () -> Date) throws(BundledDataError) {
        let pricing = MarketPricing(
            fares: fares, window: try BookingWindowCurve.bundled(),
            distance: DistanceFareModel.fittedOnce(to: fares, directory: directory), seed: seed
        )
        self.init(
            directory: directory, pricing: pricing, airlines: try AirlineTable.bundled(), currencies: try MarketCurrencies.bundled(),
            seed: seed, clock: clock
        )
    }

    /// A market over a given price model, airline table and currency table (tests).
    public init(
        directory: AirportDirectory, pricing: MarketPricing, airlines: AirlineTable, currencies: MarketCurrencies,
        seed: UInt64, clock: @escaping @Sendable () -> Date
    ) {
        self.directory = directory
        self.pricing = pricing
        self.currencies = currencies
        self.itineraries = SimulatedItineraries(
            directory: directory, random: StableRandom(seed: seed), carriers: CarrierNetwork(table: airlines, directory: directory)
        )
        self.clock = clock
    }

    /// Prices `query` in memory (well under a millisecond): `deadline` is not consulted.
    public func offers(for query: FareQuery, deadline: ContinuousClock.Instant?) async throws(ProviderError) -> [FlightOffer] {
        let carriers = itineraries.carriers
        guard let origin = carriers.airport(query.origin, in: directory), let destination = carriers.airport(query.destination, in: directory) else {
            return []
        }
        let cabinFactor = CabinPricing.factor(query.cabin, kilometres: origin.kilometers(to: destination))
        let today = CalendarDate.of(clock(), in: TimeZones.zone(origin.timeZone))
        let currency = currencies.currency(ofCountry: origin.country)
        var offers: [FlightOffer] = []
        for plan in itineraries.plans(from: origin, to: destination, query: query) {
            var perPerson = pricing.cheapestCents(from: origin, to: destination, departure: query.departureDate, today: today)
            if let back = query.returnDate {
                perPerson += pricing.cheapestCents(from: destination, to: origin, departure: back, today: today)
            }
            let base = Double(perPerson) * plan.priceFactor * cabinFactor * Self.travellerWeight(query)
            for seller in Self.sellers {
                let spread = seller.markup.lowerBound + (seller.markup.upperBound - seller.markup.lowerBound)
                    * itineraries.random.uniform("\(plan.key)|\(seller.name)|\(today)")
                var offer = plan.offer
                offer.provider = seller.name
                offer.simulated = true
                offer.price = currencies.price(euroCents: base * (1 + spread), in: currency)
                offer.bookingLink = "https://\(seller.name).invalid/book?itinerary=\(plan.key.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
                offers.append(offer)
            }
        }
        return offers
    }

    /// Adults pay in full, children 75%, infants on a lap 10%.
    static func travellerWeight(_ query: FareQuery) -> Double {
        Double(query.adults) + 0.75 * Double(query.children) + 0.1 * Double(query.infants)
    }
}
