import Foundation
import MailModel
import SearchEngine

/// Compact JSON for the one object a server sends most, a `SearchPage`, written directly into
/// bytes: Foundation's `JSONEncoder` takes milliseconds for a page of 20 results (a third of a
/// keyword search). The output is the same JSON object as `JSONEncoder` with sorted keys and
/// ISO-8601 dates gives (a test compares them); only the query's filters go through
/// `JSONEncoder`, being small and many-shaped.
public enum FastJSON {
    public static func encode(_ page: SearchPage) throws -> Data {
        var w = Writer()
        w.raw("{\"conversationCount\":"); w.int(page.conversationCount)
        if let cursor = page.cursor { w.raw(",\"cursor\":"); w.string(cursor) }
        w.raw(",\"keywordMatches\":"); w.int(page.keywordMatches)
        w.raw(",\"matchedConversations\":"); w.int(page.matchedConversations)
        w.raw(",\"offset\":"); w.int(page.offset)
        w.raw(",\"query\":{\"filters\":")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        w.bytes.append(contentsOf: try encoder.encode(page.query.filters))
        w.raw(",\"scope\":"); w.string(page.query.scope)
        w.raw(",\"text\":"); w.string(page.query.text)
        w.raw("},\"results\":[")
        for (i, r) in page.results.enumerated() {
            if i > 0 { w.raw(",") }
            w.result(r)
        }
        w.raw("],\"semantic\":")
        switch page.semantic {
        case .ran(let matches):
            w.raw("{\"matches\":"); w.int(matches); w.raw(",\"status\":\"ran\"}")
        case .skipped(let reason, let error):
            w.raw("{")
            if let error { w.raw("\"error\":"); w.string(error); w.raw(",") }
            w.raw("\"reason\":"); w.string(reason.rawValue); w.raw(",\"status\":\"skipped\"}")
        }
        w.raw(",\"threads\":[")
        for (i, t) in page.threads.enumerated() {
            if i > 0 { w.raw(",") }
            w.thread(t)
        }
        w.raw("]")
        w.raw(",\"tookMs\":"); w.double(page.tookMs)
        w.raw("}")
        return Data(w.bytes)
    }

    struct Writer {
        var bytes: [UInt8] = []

        init() { bytes.reserveCapacity(16_384) }

        mutating func raw(_ s: StaticString) {
            s.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        mutating func int<T: BinaryInteger>(_ v: T) {
            bytes.append(contentsOf: String(v).utf8)
        }

        mutating func bool(_ v: Bool) { v ? raw("true") : raw("false") }

        mutating func double(_ v: Double) {
            if v.isFinite, v == v.rounded(), abs(v) < 1e15 {
                // JSONEncoder writes integral values without a fraction.
                bytes.append(contentsOf: String(Int64(v)).utf8)
            } else if v.isFinite {
                bytes.append(contentsOf: v.description.utf8)
            } else {
                raw("null")
            }
        }

        mutating func string(_ s: String) {
            bytes.append(0x22)
            for b in s.utf8 {
                switch b {
                case 0x22: raw("\\\"")
                case 0x5C: raw("\\\\")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                case 0x08: raw("\\b")
                case 0x0C: raw("\\f")
                case 0..<0x20:
                    let hex: [UInt8] = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 15)]])
                default: bytes.append(b)
                }
            }
            bytes.append(0x22)
        }

        /// "2001-08-02T21:57:49Z", as the `.iso8601` strategy writes (whole seconds, UTC).
        mutating func date(_ d: Date) {
            let seconds = Int64(floor(d.timeIntervalSince1970))
            var days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
            let secondOfDay = seconds - days * 86_400
            // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
            days += 719_468
            let era = (days >= 0 ? days : days - 146_096) / 146_097
            let doe = days - era * 146_097
            let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
            let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
            let mp = (5 * doy + 2) / 153
            let day = doy - (153 * mp + 2) / 5 + 1
            let month = mp < 10 ? mp + 3 : mp - 9
            let year = yoe + era * 400 + (month <= 2 ? 1 : 0)
            func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
            let text = "\(year < 1000 ? String(repeating: "0", count: 4 - String(year).count) : "")\(year)-\(two(month))-\(two(day))T"
                + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60))Z"
            string(text)
        }

        mutating func thread(_ t: MailThread) {
            raw("{\"accountId\":"); int(t.accountId)
            raw(",\"id\":"); int(t.id)
            raw(",\"isStarred\":"); bool(t.isStarred)
            if let d = t.latestDate { raw(",\"latestDate\":"); date(d) }
            raw(",\"messageCount\":"); int(t.messageCount)
            raw(",\"participants\":[")
            for (i, a) in t.participants.enumerated() {
                if i > 0 { raw(",") }
                raw("{\"email\":"); string(a.email)
                if let name = a.name { raw(",\"name\":"); string(name) }
                raw("}")
            }
            raw("],\"snippet\":"); string(t.snippet)
            raw(",\"subject\":"); string(t.subject)
            raw(",\"unreadCount\":"); int(t.unreadCount)
            raw("}")
        }

        mutating func result(_ r: SearchResult) {
            raw("{\"accountId\":"); int(r.accountId)
            raw(",\"category\":"); string(r.category.rawValue)
            if let d = r.date { raw(",\"date\":"); date(d) }
            raw(",\"emailId\":"); int(r.emailId)
            raw(",\"hasAttachment\":"); bool(r.hasAttachment)
            raw(",\"highlights\":[")
            for (i, h) in r.highlights.enumerated() {
                if i > 0 { raw(",") }
                raw("{\"field\":"); string(h.field.rawValue)
                raw(",\"length\":"); int(h.length)
                raw(",\"start\":"); int(h.start)
                raw("}")
            }
            raw("],\"isRead\":"); bool(r.isRead)
            raw(",\"match\":"); string(r.matchSource.rawValue)
            raw(",\"matchedMessages\":"); int(r.matchedMessages)
            raw(",\"score\":"); double(r.score)
            raw(",\"senderEmail\":"); string(r.senderEmail)
            raw(",\"senderName\":"); string(r.senderName)
            raw(",\"snippet\":"); string(r.snippet)
            raw(",\"subject\":"); string(r.subject)
            raw(",\"threadId\":"); int(r.threadId)
            raw(",\"why\":{")
            var first = true
            if let name = r.why.attachment {
                raw("\"attachment\":"); string(name)
                first = false
            }
            if let k = r.why.keyword {
                if !first { raw(",") }
                raw("\"keyword\":{\"bm25\":"); double(k.bm25)
                raw(",\"rank\":"); int(k.rank)
                raw(",\"terms\":[")
                for (i, t) in k.terms.enumerated() {
                    if i > 0 { raw(",") }
                    string(t)
                }
                raw("]}")
                first = false
            }
            if let s = r.why.semantic {
                if !first { raw(",") }
                raw("\"semantic\":{")
                if let name = s.attachment { raw("\"attachment\":"); string(name); raw(",") }
                if let agreement = s.keywordAgreement { raw(agreement ? "\"keywordAgreement\":true," : "\"keywordAgreement\":false,") }
                if let passage = s.passage { raw("\"passage\":"); int(passage); raw(",") }
                raw("\"rank\":"); int(s.rank)
                raw(",\"similarity\":"); double(s.similarity)
                raw("}")
            }
            raw("}}")
        }
    }
}
