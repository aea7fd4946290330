import FareLensMessages
import FareLensStore
import Foundation
import GRDB

extension SubscriptionService {
    /// Moves every trial along at the clock's now: one day before its end,
    /// `TrialEnding(ONE_DAY_LEFT)`; at its end, `TrialEnding(EXPIRED)`, the
    /// tier becomes Free and `TierChanged` (`TRIAL_EXPIRED`) follows. A
    /// trial that ended while the service was down gets only the expiry.
    ///
    /// - Returns: how many users moved.
    @discardableResult
    func advanceTrials() -> Int {
        let now = clock.now()
        let nowMs = Self.unixMs(now)
        let moved: [(UserRecord, TrialEnding.Stage)]
        do {
            moved = try database.write { db in
                let due = try UserRecord
                    .filter(Column("tier") == Tier.trial.rawValue && Column("trialStage") != UserRecord.TrialStage.over.rawValue)
                    .filter(Column("trialEndsAtUnixMs") - 86_400_000 <= nowMs)
                    .fetchAll(db)
                var moved: [(UserRecord, TrialEnding.Stage)] = []
                for var record in due {
                    let stage: TrialEnding.Stage
                    if record.trialEndsAtUnixMs <= nowMs {
                        record.tier = Tier.free.rawValue
                        record.trialStage = .over
                        stage = .expired
                    } else if record.trialStage == .running {
                        record.trialStage = .reminded
                        stage = .oneDayLeft
                    } else {
                        continue
                    }
                    try record.update(db)
                    try self.appendTrialEnding(record, stage: stage, at: now, in: db)
                    moved.append((record, stage))
                }
                return moved
            }
        } catch {
            logger.error("trial check failed; retrying on the next one", metadata: ["error": "\(error)"])
            return 0
        }
        for (record, stage) in moved {
            logger.info("trial moved on", metadata: ["user": "\(record.userID)", "stage": "\(stage)"])
        }
        return moved.count
    }
}
