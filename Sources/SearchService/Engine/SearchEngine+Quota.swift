public import FareLensMessages
import Foundation

extension SearchEngine {
    /// Answers `ProviderQuotaRequest` for the live providers.
    public func quotaStatus(_ request: ProviderQuotaRequest) throws(SearchError) -> ProviderQuotaResponse {
        let names = live.map(\.name)
        guard request.provider.isEmpty || names.contains(request.provider) else {
            throw .invalidField("provider", "'\(request.provider)' is not a configured live provider (configured: \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        let at = now()
        let today = CalendarDate.of(at, in: .gmt)
        let nextMonth = CalendarDate(year: today.month == 12 ? today.year + 1 : today.year, month: today.month % 12 + 1, day: 1)!
        var response = ProviderQuotaResponse()
        for name in names where request.provider.isEmpty || request.provider == name {
            var status = ProviderQuotaStatus()
            status.provider = name
            do {
                status.used = try quota.used(name, at: at)
            } catch {
                throw .invalidField("provider", "quota ledger unavailable: \(error)")
            }
            status.limit = quota.limit
            status.period = QuotaLedger.period(of: at)
            status.resetsAtUnixMs = Int64(nextMonth.daysSinceEpoch) * 86_400_000
            status.backgroundStopped = Double(status.used) >= Double(status.limit) * QuotaLedger.share(.backgroundSweep)
            status.exhausted = status.used >= status.limit
            status.lastError = lastErrors.withLock { $0[name] } ?? ""
            response.providers.append(status)
        }
        return response
    }
}
