import FareLensBus
import FareLensMessages
import Foundation
import Hummingbird
import SwiftProtobuf

/// The app's client events in batches (docs/api.md; the analytics service
/// honours the opt-out, set through ``GatewayAPI/forward(_:user:fromBody:_:_:)``, SPEC §6).
extension GatewayAPI {
    /// The most events one batch may carry.
    static let maximumEventsPerBatch = 100

    /// `POST /v1/me/events` with `{"events": [RecordClientEventRequest…]}`:
    /// each is recorded for the token's user; the answer lists, in order,
    /// each event's outcome (`RECORDED`, `OPTED_OUT`, `DUPLICATE`) or the
    /// problem the analytics service found with it (an event refused does
    /// not refuse the others). A service away fails the whole batch with
    /// 503: sent again, the events already recorded answer `DUPLICATE`.
    func recordEvents(_ request: Request, _ context: GatewayRequestContext) async throws -> Response {
        let userID = try context.userID()
        let bytes = try await ProtoJSON.body(of: request, context: context)
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any], let events = object["events"] as? [Any], object.count == 1 else {
            throw Problem.badRequest("invalid-body", "the body must be {\"events\": [ … ]}")
        }
        guard !events.isEmpty, events.count <= Self.maximumEventsPerBatch else {
            throw Problem(.unprocessableContent, code: "invalid-field", "events: 1 to \(Self.maximumEventsPerBatch) events, got \(events.count)", field: "events")
        }
        var messages: [RecordClientEventRequest] = []
        for (index, event) in events.enumerated() {
            var options = JSONDecodingOptions()
            options.ignoreUnknownFields = false
            guard JSONSerialization.isValidJSONObject(event), let data = try? JSONSerialization.data(withJSONObject: event),
                  var message = try? RecordClientEventRequest(jsonUTF8Data: data, options: options)
            else { throw Problem.badRequest("invalid-body", "events[\(index)]: not a client event", field: "events[\(index)]") }
            // A clicked fare counts in a route's track record: only the server's own click-out names one.
            guard !message.hasClickedFare else {
                throw Problem.badRequest("invalid-body", "events[\(index)].clicked_fare: set by the server's click-out (/v1/book), not by the app", field: "events[\(index)].clicked_fare")
            }
            message.userID = userID
            messages.append(message)
        }
        var results: [String] = []
        for message in messages {
            do {
                results.append(try ProtoJSONWithDefaults.fareLens.text(of: try await call(message)))
            } catch let problem as Problem where problem.status.code == 422 || problem.status.code == 400 {
                results.append("{\"problem\":\(problem.json)}")
            }
        }
        return ProtoJSON.raw("{\"results\":[\(results.joined(separator: ","))]}", to: request)
    }

}
