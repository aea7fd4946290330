import FareLensBus
import FareLensMessages
import Foundation
import GRDB

/// The device registry: where a user's pushes go (docs/push.md § Devices).
extension AlertDelivery {
    /// Registers `request.device` for `request.userID`, or updates it: the
    /// token is the key, so the same phone signed in as another user moves
    /// to that user (its pushes are theirs from now on).
    func registerDevice(_ request: RegisterDeviceRequest) async throws(AlertsError) -> RegisterDeviceResponse {
        try Self.requireUser(request.userID)
        let token = try Self.deviceToken(request.device.token, field: "device.token")
        let device = request.device
        let platform = device.platform.isEmpty ? "ios" : device.platform.lowercased()
        guard platform == "ios" else { throw .invalidField("device.platform", "'\(device.platform)' is not supported; only 'ios'") }
        guard device.appVersion.count <= 32 else { throw .invalidField("device.app_version", "at most 32 characters") }
        guard device.locale.count <= 35, device.locale.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else {
            throw .invalidField("device.locale", "'\(device.locale)' is not a BCP 47 tag such as en-GB")
        }
        guard device.timeZone.isEmpty || TimeZone(identifier: device.timeZone) != nil else {
            throw .invalidField("device.time_zone", "'\(device.timeZone)' is not an IANA time zone such as Europe/London")
        }
        let environment: PushEnvironment
        switch device.environment {
        case .unspecified, .production: environment = .production
        case .sandbox: environment = .sandbox
        case .UNRECOGNIZED(let value): throw .invalidField("device.environment", "\(value) is not production or sandbox")
        }
        let nowMs = clock.now().unixMilliseconds
        let userID = request.userID
        let (row, created) = try await write { db throws(AlertsError) in
            try Self.catching { () throws -> (DeviceRow, Bool) in
                let existing = try DeviceRow.fetchOne(db, key: token)
                if existing?.userID != userID {
                    let count = try DeviceRow.filter(Column("userID") == userID).fetchCount(db)
                    guard count < DeviceRow.limitPerUser else { throw AlertsError.tooManyDevices(limit: DeviceRow.limitPerUser) }
                }
                // A device moving to another user starts afresh: its last outcome was the other user's push.
                let kept = existing?.userID == userID ? existing : nil
                let row = DeviceRow(
                    token: token, userID: userID, platform: platform, environment: environment.rawValue, appVersion: device.appVersion,
                    locale: device.locale, timeZone: device.timeZone, registeredAtUnixMs: kept?.registeredAtUnixMs ?? nowMs, updatedAtUnixMs: nowMs,
                    lastOutcome: kept?.lastOutcome ?? "", lastOutcomeAtUnixMs: kept?.lastOutcomeAtUnixMs ?? 0)
                try row.save(db)
                return (row, kept == nil)
            }
        }
        if created { logger.info("device registered", metadata: ["user": "\(userID)", "device": "\(Self.tokenSuffix(token))"]) }
        var response = RegisterDeviceResponse()
        response.device = row.message
        response.created = created
        return response
    }

    /// Removes one of the user's devices; another user's token is "not registered".
    func unregisterDevice(_ request: UnregisterDeviceRequest) async throws(AlertsError) -> UnregisterDeviceResponse {
        try Self.requireUser(request.userID)
        let token = try Self.deviceToken(request.token, field: "token")
        let userID = request.userID
        let removed = try await write { db throws(AlertsError) in
            try Self.catching { try db.execute(sql: "DELETE FROM device WHERE token = ? AND userID = ?", arguments: [token, userID]); return db.changesCount > 0 }
        }
        if removed { announceRemoved([(userID, token)], reason: "unregistered") }
        var response = UnregisterDeviceResponse()
        response.wasRegistered = removed
        return response
    }

    /// The user's devices, most recently updated first.
    func listDevices(_ request: ListDevicesRequest) throws(AlertsError) -> ListDevicesResponse {
        try Self.requireUser(request.userID)
        let rows = try read { db in
            try DeviceRow.filter(Column("userID") == request.userID).order(Column("updatedAtUnixMs").desc, Column("token")).fetchAll(db)
        }
        var response = ListDevicesResponse()
        response.devices = rows.map(\.message)
        return response
    }

    /// Publishes `DeviceRemoved` for each (user, token).
    func announceRemoved(_ devices: [(userID: String, token: String)], reason: String) {
        let nowMs = clock.now().unixMilliseconds
        for device in devices {
            var event = DeviceRemoved()
            event.userID = device.userID
            event.token = device.token
            event.reason = reason
            event.removedAtUnixMs = nowMs
            _ = events.enqueue(event)
            logger.info("device removed", metadata: ["user": "\(device.userID)", "device": "\(Self.tokenSuffix(device.token))", "reason": "\(reason)"])
        }
    }

    /// A token as stored: trimmed, lower-case, 64 hexadecimal digits.
    static func deviceToken(_ text: String, field: String) throws(AlertsError) -> String {
        let token = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard token.utf8.count == 64, token.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw .invalidDeviceToken(field)
        }
        return token
    }

    /// The last 8 digits, for logs: enough to tell devices apart, not to push to one.
    static func tokenSuffix(_ token: String) -> String { "…" + token.suffix(8) }
}
