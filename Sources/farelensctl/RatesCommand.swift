import ArgumentParser
import FareLensMessages
import Foundation

/// `farelensctl rates`: the exchange rates the search service keeps, and a conversion through them.
struct RatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rates",
        abstract: "The exchange rates in use (the ECB's euro reference rates), how old they are, and a conversion through them.",
        discussion: """
            Example: farelensctl rates
                     farelensctl rates --convert 100.00 USD --to EUR --json
            Rates older than 4 business days are marked stale; docs/search.md, "Exchange rates".
            """
    )
    @Option(name: .long, parsing: .upToNextOption, help: ArgumentHelp("An amount and its currency to convert, e.g. 100.00 USD.", valueName: "amount currency"))
    var convert: [String] = []
    @Option(name: .long, help: "The currency to convert into (with --convert).") var to: String?
    @OptionGroup var options: ConnectionOptions

    func validate() throws {
        guard convert.isEmpty == (to == nil) else { throw ValidationError("--convert AMOUNT CURRENCY and --to CURRENCY go together") }
        if !convert.isEmpty { _ = try Self.amount(convert) }
    }

    /// `["100.00", "USD"]` as minor units, refusing more decimals than the currency has.
    static func amount(_ words: [String]) throws -> Money {
        guard words.count == 2 else { throw ValidationError("--convert takes an amount and a currency, e.g. --convert 100.00 USD") }
        let currency = words[1].uppercased()
        guard Money.isCurrencyCode(currency) else { throw ValidationError("--convert: '\(words[1])' is not an ISO 4217 currency code") }
        guard let money = Money(decimal: words[0], currency: currency) else {
            throw ValidationError("--convert: '\(words[0])' is not an amount in \(currency) (at most \(Money.exponent(of: currency)) decimals)")
        }
        return money
    }

    func run() async throws {
        if let to {
            var request = ConvertMoneyRequest()
            request.amount = try Self.amount(convert)
            request.to = to.uppercased()
            let response = try await CtlRun.request(options, request)
            if options.json { return try CtlRun.printJSON(message: response) }
            print("\(request.amount.formatted) = \(response.converted.formatted)  (1 \(request.amount.currency) = \(response.rate) \(request.to), ECB rates of \(response.date)\(response.stale ? ", stale" : ""))")
            return
        }
        let response = try await CtlRun.request(options, ExchangeRatesRequest())
        if options.json { return try CtlRun.printJSON(message: response) }
        print("ECB euro reference rates of \(response.date): \(response.businessDaysOld) business days old\(response.stale ? " — STALE" : "")")
        print("source: \(response.source)" + (response.fetching ? "" : " (search.exchangeRates.url is not set: not fetched)"))
        if !response.lastError.isEmpty { print("last fetch failed: \(response.lastError)") }
        var table = TextTable("CURRENCY", "PER EURO")
        for (currency, rate) in response.ratesPerEuro.sorted(by: { $0.key < $1.key }) { table.add(currency, rate) }
        print(table.rendered)
    }
}
