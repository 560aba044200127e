import Foundation
import GRDB
import GRDBSQLite

/// The `from:` filter in memory, for a process that searches many times (the SQL of
/// `EmailFilterSQL` scans every contact with two LIKEs: 4–6 ms on Enron's 30K contacts). It answers
/// exactly what that SQL answers (a test compares them):
///
///     (lower(fromEmail) IN (contacts whose email or display name contains S)
///         AND (fromEmail contains S OR the email has no From name))
///     OR the email's own From name contains S
///
/// where "contains" is SQLite's LIKE '%S%': ASCII letters compared without case, everything else
/// byte for byte. Built from two covering-index scans and the contacts, for one version of the mail
/// (`EmailDirectory.version`: every insert and delete of mail, hence of contacts, changes it).
final class SenderIndex: Sendable {
    let version: Int64
    /// Every distinct `lower(fromEmail)`, with all its emails and those without a From name.
    private let addresses: [String: (all: [Int64], nameless: [Int64])]
    private let names: FoldedStrings
    private let nameIds: [[Int64]]
    private let contactEmails: [String]
    private let contactSearch: FoldedStrings
    /// For each string of `contactSearch`, the contact it belongs to (email and name are both searched).
    private let contactOf: [Int32]

    init(_ db: Database, version: Int64) throws {
        self.version = version
        var fromName: [Int64: String] = [:]
        var nameGroups: [String: [Int64]] = [:]
        try RawStatementScan.forEachRow(db, sql: """
            SELECT id, fromName FROM mail.emails INDEXED BY emails_from_name WHERE fromName IS NOT NULL
            """, text: nil) { row in
            guard let text = sqlite3_column_text(row, 1) else { return }
            let name = String(cString: text)
            let id = sqlite3_column_int64(row, 0)
            fromName[id] = name
            nameGroups[name, default: []].append(id)
        }
        var addresses: [String: (all: [Int64], nameless: [Int64])] = [:]
        try RawStatementScan.forEachRow(db, sql: """
            SELECT id, fromEmail FROM mail.emails INDEXED BY emails_from WHERE fromEmail IS NOT NULL
            """, text: nil) { row in
            guard let text = sqlite3_column_text(row, 1) else { return }
            let key = FoldedStrings.asciiLowercased(String(cString: text))
            let id = sqlite3_column_int64(row, 0)
            addresses[key, default: ([], [])].all.append(id)
            if (fromName[id] ?? "").isEmpty { addresses[key]!.nameless.append(id) }
        }
        self.addresses = addresses
        let sortedNames = nameGroups.keys.sorted()
        names = FoldedStrings(sortedNames)
        nameIds = sortedNames.map { nameGroups[$0]! }

        var emails: [String] = []
        var searched: [String] = []
        var owner: [Int32] = []
        try RawStatementScan.forEachRow(db, sql: "SELECT email, displayName FROM mail.contacts", text: nil) { row in
            guard let text = sqlite3_column_text(row, 0) else { return }
            let index = Int32(emails.count)
            let email = String(cString: text)
            emails.append(email)
            searched.append(email)
            owner.append(index)
            if let name = sqlite3_column_text(row, 1) {
                searched.append(String(cString: name))
                owner.append(index)
            }
        }
        contactEmails = emails
        contactSearch = FoldedStrings(searched)
        contactOf = owner
    }

    /// The emails a positive `from:` filter with `sender` keeps.
    func emailIds(sender: String) -> EmailIdSet {
        let needle = Array(FoldedStrings.asciiLowercased(sender).utf8)
        var result = EmailIdSet()
        var seen = Set<Int32>()
        for i in contactSearch.indicesContaining(needle) {
            let contact = contactOf[i]
            guard seen.insert(contact).inserted, let entry = addresses[contactEmails[Int(contact)]] else { continue }
            let addressMatches = FoldedStrings.contains(Array(contactEmails[Int(contact)].utf8), needle)
            for id in addressMatches ? entry.all : entry.nameless { result.insert(id) }
        }
        for i in names.indicesContaining(needle) {
            for id in nameIds[i] { result.insert(id) }
        }
        return result
    }
}

/// Strings folded as SQLite's LIKE folds them (ASCII letters to lower case), in one buffer, for
/// finding every string that contains a needle in one pass (`memchr` for its first byte).
struct FoldedStrings: Sendable {
    private let buffer: [UInt8]
    /// Where each string starts in `buffer` (strings are separated by a 0 byte).
    private let starts: [Int]

    init(_ strings: [String]) {
        var buffer: [UInt8] = []
        var starts: [Int] = []
        starts.reserveCapacity(strings.count)
        for s in strings {
            starts.append(buffer.count)
            for b in s.utf8 where b != 0 { buffer.append(b >= 0x41 && b <= 0x5A ? b + 32 : b) }
            buffer.append(0)
        }
        self.buffer = buffer
        self.starts = starts
    }

    static func asciiLowercased(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// Whether `haystack` (as stored: the caller folds) contains `needle` (folded), ASCII-folding the haystack.
    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        let folded = haystack.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }
        guard !needle.isEmpty else { return true }
        return folded.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in find(n, in: h, from: 0) != nil }
        }
    }

    /// The first position at or after `from` where `needle` (not empty) occurs in `haystack`.
    static func find(_ needle: UnsafeRawBufferPointer, in haystack: UnsafeRawBufferPointer, from: Int) -> Int? {
        let first = Int32(needle[0])
        var i = from
        while haystack.count - i >= needle.count {
            guard let hit = memchr(haystack.baseAddress! + i, first, haystack.count - i - needle.count + 1) else { return nil }
            let position = haystack.baseAddress!.distance(to: UnsafeRawPointer(hit))
            if memcmp(haystack.baseAddress! + position, needle.baseAddress!, needle.count) == 0 { return position }
            i = position + 1
        }
        return nil
    }

    /// The indices of the strings that contain `needle` (already folded), each once, ascending.
    func indicesContaining(_ needle: [UInt8]) -> [Int] {
        guard !needle.isEmpty, !needle.contains(0) else { return needle.isEmpty ? Array(starts.indices) : [] }
        var found: [Int] = []
        buffer.withUnsafeBytes { h in
            needle.withUnsafeBytes { n in
                var offset = 0
                while offset < h.count, let position = Self.find(n, in: h, from: offset) {
                    // The string holding `position`: the last start at or before it.
                    var low = 0, high = starts.count - 1
                    while low < high {
                        let mid = (low + high + 1) / 2
                        if starts[mid] <= position { low = mid } else { high = mid - 1 }
                    }
                    found.append(low)
                    // Go on after the end of that string: one hit a string is enough.
                    offset = (low + 1 < starts.count) ? starts[low + 1] : h.count
                }
            }
        }
        return found
    }
}

/// When the `from:` filter runs in memory: from the second search with a sender filter on the same
/// version of the mail (a one-shot command does one search and keeps the SQL; a server builds the
/// index once per change of its mail and then answers from memory).
public final class SenderLookup: @unchecked Sendable {
    private let lock = NSLock()
    private var version: Int64 = .min
    private var uses = 0
    private var built: SenderIndex?

    public init() {}

    /// The index for `version`, built on its second use; nil: use SQL.
    func index(_ db: Database, version: Int64) throws -> SenderIndex? {
        let (ready, due) = lock.withLock { () -> (SenderIndex?, Bool) in
            if self.version != version {
                self.version = version
                uses = 0
                built = nil
            }
            uses += 1
            return (built, built == nil && uses >= 2)
        }
        if let ready { return ready }
        guard due else { return nil }
        let index = try SenderIndex(db, version: version)
        lock.withLock { if self.version == version { built = index } }
        return index
    }
}
