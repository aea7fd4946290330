import FareLensMessages
import Testing
@testable import farelensctl

/// How `alerts history` shows an alert's pushes.
@Suite("Alerts history: push deliveries")
struct AlertsPushOutputTests {
    @Test("each device's push is a line under the alert: its last 8 digits, its state and APNs' reason; other channels add no line")
    func pushLines() {
        var alert = AlertRecord()
        alert.decision = .sent
        alert.origin = "JFK"
        alert.destination = "NRT"
        alert.deliveryState = .delivered
        alert.reason = "Threshold crossed"
        var webhook = AlertDeliveryRecord()
        webhook.channel = .webhook
        webhook.state = .delivered
        var gone = AlertDeliveryRecord()
        gone.channel = .push
        gone.deviceToken = String(repeating: "0", count: 56) + "1a2b3c4d"
        gone.state = .deviceRemoved
        gone.error = "APNs 410 Unregistered"
        var delivered = gone
        delivered.deviceToken = String(repeating: "0", count: 56) + "99887766"
        delivered.state = .delivered
        delivered.error = ""
        alert.deliveries = [webhook, gone, delivered]
        let lines = AlertsCommand.table([alert]).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("push …1a2b3c4d: device removed: APNs 410 Unregistered"))
        #expect(lines.contains("push …99887766: delivered"))
        #expect(!lines.contains { $0.contains("webhook") })
    }
}
