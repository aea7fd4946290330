import FareLensBus
import FareLensMessages
import FareLensTesting
import Foundation
import NIOHTTP1
import Testing

@Suite("Gateway: alert controls, analytics, export, prices, scores, booking and the click-out", .serialized)
struct GatewayOperationsTests {
    @Test("mute and unmute a route, pause and resume: the settings say so")
    func alertControls() async throws {
        try await GatewayHarness.with(.split) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let muted = try await api.send(.POST, "/v1/me/alerts/mutes", token: token, json: #"{"origin":"LON","destination":"BCN","days":7}"#)
            #expect(muted.status == 200 && muted.string("muted_until_unix_ms") != "0", "\(muted.text)")
            let paused = try await api.send(.PUT, "/v1/me/alerts/pause", token: token, json: #"{"hours":24}"#)
            #expect(paused.status == 200, "\(paused.text)")
            let settings = try await api.send(.GET, "/v1/me/alerts/settings", token: token)
            #expect((settings.json["muted_routes"] as? [Any])?.count == 1 && settings.string("paused_until_unix_ms") != "0", "\(settings.text)")
            #expect(try await api.send(.DELETE, "/v1/me/alerts/mutes/LON-BCN", token: token).json["was_muted"] as? Bool == true)
            #expect(try await api.send(.DELETE, "/v1/me/alerts/pause", token: token).json["was_paused"] as? Bool == true)
            let after = try await api.send(.GET, "/v1/me/alerts/settings", token: token)
            #expect((after.json["muted_routes"] as? [Any])?.isEmpty == true && after.string("paused_until_unix_ms") == "0", "\(after.text)")
            let bad = try await api.send(.DELETE, "/v1/me/alerts/mutes/LONBCN", token: token)
            #expect(bad.status == 400 && bad.string("field") == "route")
        }
    }

    @Test("client events in a batch are recorded once each; an opted-out user's are not; a batch past 100, with an unknown field, or naming a clicked fare is refused")
    func events() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let batch = #"{"events":[{"client_event_id":"e1","kind":"APP_OPENED","occurred_at_unix_ms":"1795000000000"},{"client_event_id":"e2","kind":"DEAL_VIEWED","deal_id":"d-1","placement":"DEALCARD","occurred_at_unix_ms":"1795000000001"}]}"#
            let first = try await api.send(.POST, "/v1/me/events", token: token, json: batch)
            #expect(first.status == 200, "\(first.text)")
            #expect((first.json["results"] as? [[String: Any]])?.compactMap { $0["outcome"] as? String } == ["RECORDED", "RECORDED"], "\(first.text)")
            let again = try await api.send(.POST, "/v1/me/events", token: token, json: batch)
            #expect((again.json["results"] as? [[String: Any]])?.compactMap { $0["outcome"] as? String } == ["DUPLICATE", "DUPLICATE"], "\(again.text)")
            #expect(try await api.send(.PUT, "/v1/me/analytics", token: token, json: #"{"opt_out":true}"#).json["opted_out"] as? Bool == true)
            let optedOut = try await api.send(.POST, "/v1/me/events", token: token, json: #"{"events":[{"client_event_id":"e3","kind":"APP_OPENED","occurred_at_unix_ms":"1795000000002"}]}"#)
            #expect((optedOut.json["results"] as? [[String: Any]])?.first?["outcome"] as? String == "OPTED_OUT", "\(optedOut.text)")
            let mixed = try await api.send(.POST, "/v1/me/events", token: token, json: #"{"events":[{"client_event_id":"e5","kind":"DEAL_VIEWED","occurred_at_unix_ms":"1795000000003"},{"client_event_id":"e6","kind":"APP_OPENED","occurred_at_unix_ms":"1795000000004"}]}"#)
            let results = try #require(mixed.json["results"] as? [[String: Any]], "\(mixed.text)")
            #expect(mixed.status == 200 && (results[0]["problem"] as? [String: Any])?["field"] as? String == "placement", "\(mixed.text)")
            #expect(results[1]["outcome"] as? String == "OPTED_OUT", "one refused event does not refuse the others")
            let many = "{\"events\":[" + Array(repeating: #"{"client_event_id":"x","kind":"APP_OPENED"}"#, count: 101).joined(separator: ",") + "]}"
            let tooMany = try await api.send(.POST, "/v1/me/events", token: token, json: many)
            #expect(tooMany.status == 422 && tooMany.string("field") == "events")
            let unknown = try await api.send(.POST, "/v1/me/events", token: token, json: #"{"events":[{"client_event_id":"e4","kind":"APP_OPENED","secret":"x"}]}"#)
            #expect(unknown.status == 400 && unknown.string("field") == "events[0]")
            let fare = #"{"search":{"origin":"LON","destination":"BCN","departure_date":{"year":2027,"month":1,"day":15}},"price":{"currency":"EUR","minor_units":"100"}}"#
            let clicked = try await api.send(.POST, "/v1/me/events", token: token, json: #"{"events":[{"client_event_id":"e7","kind":"AFFILIATE_CLICKED","placement":"DEALCARD","clicked_fare":"# + fare + "}]}")
            #expect(clicked.status == 400 && clicked.code == "invalid-body" && clicked.string("field") == "events[0].clicked_fare", "\(clicked.text)")
        }
    }

    @Test("the export holds the account, every watchlist (inactive too), alert settings and history")
    func export() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let created = try await api.send(.POST, "/v1/me/watchlists", token: token, json: #"{"origin":"JFK","destination":"LAX","dates":{"flexible":{}}}"#)
            let id = try #require((created.json["watchlist"] as? [String: Any])?["watchlist_id"] as? String)
            #expect(try await api.send(.PATCH, "/v1/me/watchlists/\(id)", token: token, json: #"{"active":false}"#).status == 200)
            let export = try await api.send(.GET, "/v1/me/export", token: token)
            #expect(export.status == 200 && export.headers.first(name: "Content-Disposition")?.hasPrefix("attachment") == true)
            #expect(((export.json["account"] as? [String: Any])?["user"] as? [String: Any])?["email"] as? String == "ana@example.com")
            #expect(((export.json["watchlists"] as? [String: Any])?["watchlists"] as? [Any])?.count == 1, "\(export.text)")
            #expect(export.json["alert_settings"] != nil && export.json["alert_history"] != nil)
        }
    }

    @Test("price history and a score explanation answer; a bad month or cabin is 400 naming it")
    func pricesAndScores() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let history = try await api.send(.GET, "/v1/prices/history?origin=JFK&destination=LAX&month=2027-01&cabin=economy", token: token)
            #expect(history.status == 200 && history.json["enough_data"] != nil && history.headers.first(name: "ETag") != nil, "\(history.text)")
            #expect(try await api.send(.GET, "/v1/prices/history?origin=JFK&destination=LAX&month=Jan", token: token).string("field") == "month")
            #expect(try await api.send(.GET, "/v1/prices/history?origin=JFK&destination=LAX&cabin=steerage", token: token).string("field") == "cabin")
            let score = try await api.send(.POST, "/v1/score", token: token, json: #"{"origin":"JFK","destination":"LAX","departure_date":{"year":2027,"month":1,"day":15},"price":{"currency":"USD","minor_units":"9900"},"carrier":"B6"}"#)
            #expect(score.status == 200 || score.status == 422, "\(score.text)")
            if score.status == 200 { #expect(score.json["score"] != nil) }
        }
    }

    @Test("buy or wait answers for a route and month; a route that is not ORIGIN-DESTINATION, a missing or bad month and a bad cabin are 400 naming them; a past month is 422 from scoring")
    func forecast() async throws {
        try await GatewayHarness.with(.oneProcess) { harness, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let next = CalendarDate.of(harness.clock.now(), in: .gmt).adding(days: 45)
            let month = String(format: "%04d-%02d", next.year, next.month)
            let answer = try await api.send(.GET, "/v1/routes/JFK-LAX/forecast?month=\(month)&cabin=economy", token: token)
            #expect(answer.status == 200 && answer.json["outlook"] as? String == "FARE_OUTLOOK_NO_CLEAR_SIGNAL", "\(answer.text)")
            #expect((answer.json["reasons"] as? [String])?.isEmpty == false && answer.headers.first(name: "ETag") != nil)
            #expect(try await api.send(.GET, "/v1/routes/JFKLAX/forecast?month=\(month)", token: token).string("field") == "route")
            #expect(try await api.send(.GET, "/v1/routes/JFK-LAX/forecast", token: token).string("field") == "month")
            #expect(try await api.send(.GET, "/v1/routes/JFK-LAX/forecast?month=Jan", token: token).string("field") == "month")
            #expect(try await api.send(.GET, "/v1/routes/JFK-LAX/forecast?month=\(month)&cabin=steerage", token: token).string("field") == "cabin")
            let past = try await api.send(.GET, "/v1/routes/JFK-LAX/forecast?month=2020-01", token: token)
            #expect(past.status == 422 && past.code == "invalid-field" && past.string("field") == "departure_month", "\(past.text)")
            #expect(try await api.send(.GET, "/v1/routes/JFK-LAX/forecast?month=\(month)").status == 401)
        }
    }

    @Test("a route's track record answers with its 7, 30 and 90 days (not enough alerts yet on a new node); a route that is not ORIGIN-DESTINATION is 400, a bad code 422 from analytics")
    func trackRecord() async throws {
        try await GatewayHarness.with(.oneProcess) { _, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let answer = try await api.send(.GET, "/v1/routes/LON-BCN/track-record", token: token)
            let windows = try #require(answer.json["windows"] as? [[String: Any]], "\(answer.text)")
            #expect(answer.status == 200 && windows.count == 3 && windows.compactMap { $0["days"] as? Int } == [7, 30, 90])
            #expect(windows.allSatisfy { $0["confirmed_by_recheck"] as? Int == 0 }, "\(answer.text)")
            #expect((windows.first?["summary"] as? String)?.hasPrefix("Not enough alerts yet on LON→BCN") == true, "\(answer.text)")
            #expect(try await api.send(.GET, "/v1/routes/LONBCN/track-record", token: token).string("field") == "route")
            let bad = try await api.send(.GET, "/v1/routes/LONDON-BCN/track-record", token: token)
            #expect(bad.status == 422 && bad.code == "invalid-field" && bad.string("field") == "origin", "\(bad.text)")
        }
    }

    @Test("booking options carry signed click URLs; the click-out redirects with no bearer token and its fare is re-checked into the route's track record; an altered, moved or expired one is refused")
    func bookingAndClickOut() async throws {
        try await GatewayHarness.with(.split) { harness, api in
            let token = try #require(try await api.signUp("ana@example.com").string("access_token"))
            let search = try await api.send(.POST, "/v1/search", token: token, json: #"{"origin":"JFK","destination":"LAX","departure_date":{"year":2027,"month":1,"day":15},"adults":1}"#)
            let offer = try #require((search.json["offers"] as? [[String: Any]])?.first?["offer_id"] as? String, "\(search.text)")
            let options = try await api.send(.GET, "/v1/offers/\(offer)/booking-options?placement=dealcard", token: token)
            #expect(options.status == 200, "\(options.text)")
            let first = try #require((options.json["options"] as? [[String: Any]])?.first)
            let clickURL = try #require(first["click_url"] as? String)
            let link = try #require(first["link"] as? String)
            #expect(clickURL.hasPrefix("/v1/book/\(offer)?c="))

            let redirect = try await api.send(.GET, clickURL)
            #expect(redirect.status == 302 && redirect.headers.first(name: "Location") == link, "\(redirect.text)")
            // The click names its fare: analytics searches it again at once and counts it on the route searched.
            var route = RouteTrackRecordRequest()
            (route.origin, route.destination) = ("JFK", "LAX")
            for _ in 0 ..< 400 {
                if try await harness.gatewayBus.request(route, timeout: .seconds(5)).windows.first?.clicksFareStillThere == 1 { break }
                try await Task.sleep(for: .milliseconds(25))  // safe: waiting for analytics' re-check on the services' node, at most 10 s
            }
            let week = try #require(try await api.send(.GET, "/v1/routes/JFK-LAX/track-record", token: token).json["windows"] as? [[String: Any]]).first ?? [:]
            #expect(week["clicks"] as? Int == 1 && week["clicks_fare_still_there"] as? Int == 1 && week["clicks_fare_risen"] as? Int == 0, "\(week)")
            let altered = try await api.send(.GET, String(clickURL.dropLast(3)) + "abc")
            #expect(altered.status == 401 && altered.code == "invalid-click")
            let moved = try await api.send(.GET, clickURL.replacingOccurrences(of: "/v1/book/\(offer)", with: "/v1/book/of-0000000000000000"))
            #expect(moved.status == 401 && moved.code == "invalid-click")
            harness.clock.advance(by: 15 * 60)
            let expired = try await api.send(.GET, clickURL)
            #expect(expired.status == 410 && expired.code == "click-expired")
            let badPlacement = try await api.send(.GET, "/v1/offers/\(offer)/booking-options?placement=billboard", token: token)
            #expect(badPlacement.status == 400 && badPlacement.string("field") == "placement")
        }
    }
}
