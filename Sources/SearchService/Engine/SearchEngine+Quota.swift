import FareLensBus
public import FareLensMessages
import Foundation

extension SearchEngine {
    /// Whether a live call was allowed, and the quota used after charging it.
    enum Reservation: Sendable {
        case reserved(used: Int64)
        case refused(String)
    }

    /// Checks and charges one call of `purpose` to `provider` in one step
    /// (on the ledger's actor), so concurrent date pairs cannot overshoot a
    /// class's share; queues a `QuotaWarning` for each threshold crossed.
    func reserveCall(_ provider: String, _ purpose: SearchPurpose, parent: RequestContext?) async -> Reservation {
        let admission: QuotaLedger.Admission
        do {
            admission = try await quota.admit(provider, purpose, at: now())
        } catch {
            return .refused("\(provider): quota ledger unavailable (\(error))")
        }
        switch admission {
        case .refused:
            return .refused("\(provider): monthly quota reached for \(Self.purposeName(purpose))")
        case .charged(let used, let crossings):
            for crossing in crossings { warn(crossing, parent: parent) }
            return .reserved(used: used)
        case .chargeFailed(let error):
            logger.error("quota ledger write failed", metadata: ["provider": "\(provider)", "error": "\(error)"])
            return .reserved(used: 0)
        }
    }

    /// Remembers a live provider's last outcome for ``quotaStatus(_:)``.
    func recordOutcome(_ provider: String, error: ProviderError?) {
        lastErrors[provider] = error?.description ?? ""
    }

    /// Answers `ProviderQuotaRequest` for the live providers.
    public func quotaStatus(_ request: ProviderQuotaRequest) async throws(SearchError) -> ProviderQuotaResponse {
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
                status.used = try await quota.used(name, at: at)
            } catch {
                throw .invalidField("provider", "quota ledger unavailable: \(error)")
            }
            status.limit = quota.limit
            status.period = QuotaLedger.period(of: at)
            status.resetsAtUnixMs = Int64(nextMonth.daysSinceEpoch) * 86_400_000
            status.backgroundStopped = Double(status.used) >= Double(status.limit) * QuotaLedger.share(.backgroundSweep)
            status.exhausted = status.used >= status.limit
            status.lastError = lastErrors[name] ?? ""
            response.providers.append(status)
        }
        return response
    }
}
