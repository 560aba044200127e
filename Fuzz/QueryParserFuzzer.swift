// libFuzzer entry point for SearchQueryParser, built by Fuzz/run-query-fuzzer.sh together with the
// parser's own source files (Sources/SearchEngine/SearchQueryParser.swift and QueryParsing/), and
// FTS5QueryBuilder, which reads the free text.
//
// Any byte string is a query. Besides crashes and address errors, the harness traps when the
// parser's free text holds anything that was not in the input (whitespace aside).
import Foundation
import MailModel
import SearchIndex

private let zones = ["Europe/Berlin", "America/Los_Angeles", "Pacific/Kiritimati", "UTC"]

private let parsers: [SearchQueryParser] = zones.map { zone in
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: zone) ?? TimeZone(secondsFromGMT: 0)!
    calendar.firstWeekday = 2
    let now = Date(timeIntervalSince1970: 1_718_438_400)  // 2024-06-15 08:00 UTC
    return SearchQueryParser(calendar: calendar, now: { now })
}

@_cdecl("LLVMFuzzerTestOneInput")
public func queryParserFuzzTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    let parser = parsers[size % parsers.count]
    let query = parser.parse(text)
    guard isDrawn(query.text, from: text) else {
        fatalError("free text \(query.text.debugDescription) is not drawn from the input")
    }
    // The builder never fails either, and never lets a quote into an FTS5 string unescaped.
    let compiled = FTS5QueryBuilder.query(for: query.text)
    for term in compiled.terms where term.text.contains("\"") {
        fatalError("term \(term.text.debugDescription) holds a quote")
    }
    return 0
}

/// True when `output` without whitespace is a subsequence of `input` without whitespace.
private func isDrawn(_ output: String, from input: String) -> Bool {
    var source = input.unicodeScalars.makeIterator()
    for scalar in output.unicodeScalars where !scalar.properties.isWhitespace {
        var found = false
        while let candidate = source.next() {
            if candidate == scalar { found = true; break }
        }
        if !found { return false }
    }
    return true
}
