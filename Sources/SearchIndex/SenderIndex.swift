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
///
/// The index is one flat byte layout (`bytes`), searched in place: a server builds it once per
/// version of its mail; a one-shot process reads the copy the previous process left in
/// `search.sqlite` (`sender_cache`) instead of running the SQL.
final class SenderIndex: Sendable {
    let version: Int64
    /// `MAX(id)` of the emails it was built from (a stored copy must match it too).
    let maxId: Int64
    /// The layout, 8-byte aligned sections: a header of counts, the searched strings of the
    /// contacts that sent mail (email and display name, folded, 0-separated; a contact that never
    /// sent anything has no email to give, whatever it matches) with their starts and owners, each
    /// contact's email string and its two id ranges (all its emails, those without a From name
    /// first; those without a From name: the start of the first), the distinct From names with
    /// their starts and id ranges, and last every email id (Int64) that a range points into. What
    /// a `from:` search reads whole (the strings and their starts) comes first, so a one-shot
    /// search reading the stored copy part by part reaches it without passing over the ids.
    let bytes: [UInt8]

    private struct Header {
        static let magic: UInt32 = 0x3244_4E53  // "SND2" (an "SND1" copy of an earlier version is not read)
        static let fields = 8  // magic, then the seven counts below
        var contactStrings = 0, contacts = 0, names = 0, ids = 0, contactBytes = 0, nameBytes = 0, reserved = 0
    }

    /// Offsets of the sections in `bytes`.
    private struct Layout {
        let header: Header
        let ids: Int, contactBuffer: Int, contactStarts: Int, contactOf: Int, contactEmail: Int, contactRanges: Int
        let nameBuffer: Int, nameStarts: Int, nameRanges: Int, end: Int

        init(_ h: Header) {
            header = h
            func aligned(_ n: Int) -> Int { (n + 7) & ~7 }
            contactBuffer = aligned(4 * Header.fields)
            contactStarts = aligned(contactBuffer + h.contactBytes)
            contactOf = contactStarts + 4 * h.contactStrings
            contactEmail = contactOf + 4 * h.contactStrings
            contactRanges = contactEmail + 4 * h.contacts  // 4 Int32 a contact: all start, count, nameless start, count
            nameBuffer = contactRanges + 16 * h.contacts
            nameStarts = aligned(nameBuffer + h.nameBytes)
            nameRanges = nameStarts + 4 * h.names  // 2 Int32 a name: start, count
            ids = aligned(nameRanges + 8 * h.names)
            end = ids + 8 * h.ids
        }

        init?(reading raw: UnsafeRawBufferPointer) {
            self.init(header: raw, total: raw.count)
        }

        /// The layout whose header is at the start of `raw`, of a copy `total` bytes long; nil when
        /// the header is not one or the sizes it gives do not add up to `total`.
        init?(header raw: UnsafeRawBufferPointer, total: Int) {
            guard raw.count >= 4 * Header.fields, raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self) == Header.magic else {
                return nil
            }
            func count(_ i: Int) -> Int { Int(raw.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)) }
            let h = Header(contactStrings: count(1), contacts: count(2), names: count(3), ids: count(4),
                           contactBytes: count(5), nameBytes: count(6), reserved: count(7))
            guard [h.contactStrings, h.contacts, h.names, h.ids, h.contactBytes, h.nameBytes].allSatisfy({ $0 >= 0 })
            else { return nil }
            self.init(h)
            guard end == total else { return nil }
        }
    }

    private let layout: Layout

    /// Built from the mail `db` sees (attached as `mail`).
    init(_ db: Database, version: Int64, maxId: Int64) throws {
        var fromName: [Int64: String] = [:]
        var nameGroups: [String: [Int64]] = [:]
        // Each scan reads its index, not the rows with their bodies; while a first import has not
        // built these indexes yet (`MailStore.deferIndexesWhileEmpty`), the table: the same rows
        // (what is looked up is a set of ids).
        let present = Set(try String.fetchAll(db, sql: """
            SELECT name FROM mail.sqlite_master WHERE type = 'index' AND name IN ('emails_from_name', 'emails_from')
            """))
        func indexed(_ name: String) -> String { present.contains(name) ? "INDEXED BY \(name)" : "" }
        try RawStatementScan.forEachRow(db, sql: """
            SELECT id, fromName FROM mail.emails \(indexed("emails_from_name")) WHERE fromName IS NOT NULL
            """, text: nil) { row in
            guard let text = sqlite3_column_text(row, 1) else { return }
            let name = String(cString: text)
            let id = sqlite3_column_int64(row, 0)
            fromName[id] = name
            nameGroups[name, default: []].append(id)
        }
        var addresses: [String: (nameless: [Int64], named: [Int64])] = [:]
        try RawStatementScan.forEachRow(db, sql: """
            SELECT id, fromEmail FROM mail.emails \(indexed("emails_from")) WHERE fromEmail IS NOT NULL
            """, text: nil) { row in
            guard let text = sqlite3_column_text(row, 1) else { return }
            let key = FoldedStrings.asciiLowercased(String(cString: text))
            let id = sqlite3_column_int64(row, 0)
            if (fromName[id] ?? "").isEmpty {
                addresses[key, default: ([], [])].nameless.append(id)
            } else {
                addresses[key, default: ([], [])].named.append(id)
            }
        }
        var ids: [Int64] = []
        func range(_ list: [Int64]) -> (Int32, Int32) {
            defer { ids += list }
            return (Int32(ids.count), Int32(list.count))
        }
        var contactStrings: [String] = []
        var contactOf: [Int32] = []
        var contactEmail: [Int32] = []
        var contactRanges: [Int32] = []
        try RawStatementScan.forEachRow(db, sql: "SELECT email, displayName FROM mail.contacts", text: nil) { row in
            // Only senders: on Enron 8K of the 30K contacts, a quarter of the strings to search.
            guard let text = sqlite3_column_text(row, 0), let entry = addresses[String(cString: text)] else { return }
            let contact = Int32(contactEmail.count)
            contactEmail.append(Int32(contactStrings.count))
            contactStrings.append(String(cString: text))
            contactOf.append(contact)
            if let name = sqlite3_column_text(row, 1) {
                contactStrings.append(String(cString: name))
                contactOf.append(contact)
            }
            // The emails without a From name first: their range is the start of the whole one.
            let all = range(entry.nameless + entry.named)
            contactRanges += [all.0, all.1, all.0, Int32(entry.nameless.count)]
        }
        let sortedNames = nameGroups.keys.sorted()
        var nameRanges: [Int32] = []
        for name in sortedNames {
            let r = range(nameGroups[name]!)
            nameRanges += [r.0, r.1]
        }
        let contacts = FoldedStrings(contactStrings), names = FoldedStrings(sortedNames)
        let header = Header(contactStrings: contactStrings.count, contacts: contactEmail.count, names: sortedNames.count,
                            ids: ids.count, contactBytes: contacts.buffer.count, nameBytes: names.buffer.count)
        let layout = Layout(header)
        var bytes = [UInt8](repeating: 0, count: layout.end)
        bytes.withUnsafeMutableBytes { out in
            func put<T>(_ values: [T], at offset: Int) {
                values.withUnsafeBytes { out.baseAddress!.advanced(by: offset).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            }
            put([Header.magic], at: 0)
            put([header.contactStrings, header.contacts, header.names, header.ids, header.contactBytes, header.nameBytes,
                 header.reserved].map { Int32($0) }, at: 4)
            put(ids, at: layout.ids)
            put(contacts.buffer, at: layout.contactBuffer)
            put(contacts.starts, at: layout.contactStarts)
            put(contactOf, at: layout.contactOf)
            put(contactEmail, at: layout.contactEmail)
            put(contactRanges, at: layout.contactRanges)
            put(names.buffer, at: layout.nameBuffer)
            put(names.starts, at: layout.nameStarts)
            put(nameRanges, at: layout.nameRanges)
        }
        self.version = version
        self.maxId = maxId
        self.bytes = bytes
        self.layout = layout
    }

    /// How many contacts it holds (those that sent mail).
    var contactCount: Int { layout.header.contacts }

    /// A stored copy; nil when the bytes are not a whole layout.
    init?(bytes: [UInt8], version: Int64, maxId: Int64) {
        guard let layout = bytes.withUnsafeBytes({ Layout(reading: $0) }) else { return nil }
        self.version = version
        self.maxId = maxId
        self.bytes = bytes
        self.layout = layout
    }

    /// The emails a positive `from:` filter with `sender` keeps.
    func emailIds(sender: String) -> EmailIdSet {
        bytes.withUnsafeBytes { raw in
            let l = layout, h = layout.header
            return Self.emailIds(sender: sender, layout: l,
                                 contactStarts: UnsafeRawBufferPointer(rebasing: raw[l.contactStarts..<l.contactStarts + 4 * h.contactStrings]),
                                 nameStarts: UnsafeRawBufferPointer(rebasing: raw[l.nameStarts..<l.nameStarts + 4 * h.names]),
                                 contactChunk: Int.max) { offset, count in
                UnsafeRawBufferPointer(rebasing: raw[offset..<offset + count])
            }
        }
    }

    /// The emails a positive `from:` filter with `sender` keeps, in the stored copy read part by
    /// part by `read(offset, count)` (the bytes at that offset of the layout, valid until the next
    /// call; nil when they cannot be read): the contact strings in chunks of `contactChunk` bytes,
    /// their starts whole, of the rest only the entries of the contacts and names that match (a
    /// one-shot search reads a fraction of the copy, into one buffer). nil when a read fails or
    /// the copy is not a whole layout of `bytes` bytes.
    static func emailIds(sender: String, storedBytes bytes: Int, contactChunk: Int,
                         read: (Int, Int) -> UnsafeRawBufferPointer?) -> EmailIdSet? {
        guard let head = read(0, 4 * Header.fields), let l = Layout(header: head, total: bytes) else { return nil }
        // The starts are kept (copied) while the strings are read chunk by chunk through `read`.
        guard let contactStarts = read(l.contactStarts, 4 * l.header.contactStrings).map(Array.init),
              let nameStarts = read(l.nameStarts, 4 * l.header.names).map(Array.init) else { return nil }
        var failed = false
        let result = contactStarts.withUnsafeBytes { contactStarts in
            nameStarts.withUnsafeBytes { nameStarts in
                emailIds(sender: sender, layout: l, contactStarts: contactStarts, nameStarts: nameStarts,
                         contactChunk: contactChunk) { offset, count in
                    if let part = read(offset, count) { return part }
                    failed = true
                    return UnsafeRawBufferPointer(start: nil, count: 0)
                }
            }
        }
        return failed ? nil : result
    }

    /// `emailIds(sender:)` with the starts of the contact and name strings at hand and the other
    /// sections as `section(offset, count)` gives them (the bytes at that offset of the layout, at
    /// least `count` of them, or an empty buffer when they cannot be had), valid until the next
    /// call; the contact strings are searched `contactChunk` bytes at a time.
    private static func emailIds(sender: String, layout l: Layout, contactStarts: UnsafeRawBufferPointer,
                                 nameStarts: UnsafeRawBufferPointer, contactChunk: Int,
                                 section: (Int, Int) -> UnsafeRawBufferPointer) -> EmailIdSet {
        let needle = Array(FoldedStrings.asciiLowercased(sender).utf8)
        var result = EmailIdSet()
        let h = l.header
        func int32(_ offset: Int, _ index: Int) -> Int {
            let bytes = section(offset + 4 * index, 4)
            return bytes.count >= 4 ? Int(bytes.loadUnaligned(as: Int32.self)) : -1
        }
        func insert(start: Int, count: Int) {
            guard start >= 0, count >= 0, start + count <= h.ids, count > 0 else { return }
            let ids = section(l.ids + 8 * start, 8 * count)
            guard ids.count >= 8 * count else { return }
            for i in 0..<count { result.insert(ids.loadUnaligned(fromByteOffset: 8 * i, as: Int64.self)) }
        }
        let contacts = FoldedStrings.indicesContaining(needle, total: h.contactBytes, starts: contactStarts, chunk: contactChunk) {
            section(l.contactBuffer + $0, $1)
        } ?? []
        var seen = [Bool](repeating: false, count: h.contacts)  // not a Set: no hashing set up for a one-shot search
        for i in contacts {
            let contact = int32(l.contactOf, i)
            guard contact >= 0, contact < h.contacts, !seen[contact] else { continue }
            seen[contact] = true
            let email = int32(l.contactEmail, contact)
            guard email >= 0, email < h.contactStrings else { continue }
            let addressMatches = FoldedStrings.range(of: email, total: h.contactBytes, starts: contactStarts)
                .map { FoldedStrings.contains([UInt8](section(l.contactBuffer + $0.lowerBound, $0.count)), needle) } ?? false
            let base = 4 * contact + (addressMatches ? 0 : 2)
            insert(start: int32(l.contactRanges, base), count: int32(l.contactRanges, base + 1))
        }
        let names = FoldedStrings.indicesContaining(needle, total: h.nameBytes, starts: nameStarts, chunk: contactChunk) {
            section(l.nameBuffer + $0, $1)
        } ?? []
        for i in names {
            insert(start: int32(l.nameRanges, 2 * i), count: int32(l.nameRanges, 2 * i + 1))
        }
        return result
    }

    // MARK: The copy for the next process (`sender_cache` in search.sqlite)

    func storeCopy(db: Database) throws {
        try db.execute(sql: "INSERT OR REPLACE INTO sender_cache (id, version, maxId, data) VALUES (1, ?, ?, ?)",
                       arguments: [version, maxId, Data(bytes)])
    }

    static func storedCopy(_ db: Database, version: Int64, maxId: Int64) throws -> SenderIndex? {
        var index: SenderIndex?
        try RawStatementScan.forEachRow(db, sql: "SELECT data FROM sender_cache WHERE id = 1 AND version = ? AND maxId = ?",
                                        text: nil, integers: [version, maxId]) { row in
            guard sqlite3_column_type(row, 0) == SQLITE_BLOB, let blob = sqlite3_column_blob(row, 0) else { return }
            let count = Int(sqlite3_column_bytes(row, 0))
            let bytes = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(from: UnsafeRawBufferPointer(start: blob, count: count))
                initialized = count
            }
            index = SenderIndex(bytes: bytes, version: version, maxId: maxId)
        }
        return index
    }
}

/// Strings folded as SQLite's LIKE folds them (ASCII letters to lower case), in one buffer, for
/// finding every string that contains a needle in one pass (`memchr` for its first byte).
struct FoldedStrings: Sendable {
    let buffer: [UInt8]
    /// Where each string starts in `buffer` (strings are separated by a 0 byte).
    let starts: [Int32]

    init(_ strings: [String]) {
        var buffer: [UInt8] = []
        var starts: [Int32] = []
        starts.reserveCapacity(strings.count)
        for s in strings {
            starts.append(Int32(buffer.count))
            for b in s.utf8 where b != 0 { buffer.append(b >= 0x41 && b <= 0x5A ? b + 32 : b) }
            buffer.append(0)
        }
        self.buffer = buffer
        self.starts = starts
    }

    static func asciiLowercased(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// Whether `haystack` contains `needle` (folded), ASCII-folding the haystack.
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

    /// Where string `index` is (without its terminating 0) in a buffer of `total` bytes with these starts.
    static func range(of index: Int, total: Int, starts: UnsafeRawBufferPointer) -> Range<Int>? {
        let count = starts.count / 4
        guard index >= 0, index < count else { return nil }
        let start = Int(starts.loadUnaligned(fromByteOffset: 4 * index, as: Int32.self))
        let end = index + 1 < count ? Int(starts.loadUnaligned(fromByteOffset: 4 * index + 4, as: Int32.self)) - 1 : total - 1
        guard start >= 0, start <= end, end <= total else { return nil }
        return start..<end
    }

    /// The indices of the strings of `buffer` (folded, 0-separated, starting at `starts`: Int32
    /// each) that contain `needle` (already folded), each once, ascending.
    static func indicesContaining(_ needle: [UInt8], buffer: UnsafeRawBufferPointer, starts: UnsafeRawBufferPointer) -> [Int] {
        indicesContaining(needle, total: buffer.count, starts: starts, chunk: Int.max) {
            UnsafeRawBufferPointer(rebasing: buffer[$0..<$0 + $1])
        } ?? []
    }

    /// The same over a buffer of `total` bytes read `chunk` bytes at a time by `read(offset, count)`
    /// (consecutive chunks overlap by the needle's length less one, so no occurrence is missed);
    /// nil when a read gives fewer bytes than asked.
    static func indicesContaining(_ needle: [UInt8], total: Int, starts: UnsafeRawBufferPointer, chunk: Int,
                                  read: (Int, Int) -> UnsafeRawBufferPointer) -> [Int]? {
        let count = starts.count / 4
        guard !needle.isEmpty, !needle.contains(0) else { return needle.isEmpty ? Array(0..<count) : [] }
        func start(_ i: Int) -> Int { Int(starts.loadUnaligned(fromByteOffset: 4 * i, as: Int32.self)) }
        var found: [Int] = []
        guard count > 0, total > 0 else { return found }
        var offset = 0  // where the search goes on, in the whole buffer
        var base = 0    // where the current chunk starts
        while offset < total {
            let size = min(max(chunk, needle.count), total - base)
            let part = read(base, size)
            guard part.count >= size else { return nil }
            needle.withUnsafeBytes { n in
                while offset < base + size, let p = find(n, in: UnsafeRawBufferPointer(rebasing: part[0..<size]), from: offset - base) {
                    let position = base + p
                    // The string holding `position`: the last start at or before it.
                    var low = 0, high = count - 1
                    while low < high {
                        let mid = (low + high + 1) / 2
                        if start(mid) <= position { low = mid } else { high = mid - 1 }
                    }
                    found.append(low)
                    // Go on after the end of that string: one hit a string is enough.
                    offset = low + 1 < count ? start(low + 1) : total
                }
            }
            guard base + size < total else { break }
            base = max(base + size - (needle.count - 1), offset)
            offset = base
        }
        return found
    }
}

/// When the `from:` filter runs in memory: from the copy a previous process left for this version
/// of the mail (`sender_cache`), else from the second search with a sender filter on the same
/// version (a one-shot command does one search, keeps the SQL, and leaves a copy for the next
/// process after its output; a server builds the index once per change of its mail and then
/// answers from memory).
public final class SenderLookup: @unchecked Sendable {
    private let lock = NSLock()
    private var version: Int64 = .min
    private var maxId: Int64 = .min
    private var uses = 0
    private var checkedStore = false
    private var built: SenderIndex?
    /// A search of this version used the SQL and found no stored copy.
    private var copyDue = false

    public init() {}

    /// The index for `version` (and `maxId`); nil: use SQL.
    func index(_ db: Database, version: Int64, maxId: Int64) throws -> SenderIndex? {
        let (ready, checkStore, due) = lock.withLock { () -> (SenderIndex?, Bool, Bool) in
            if self.version != version || self.maxId != maxId {
                self.version = version
                self.maxId = maxId
                uses = 0
                built = nil
                checkedStore = false
                copyDue = false
            }
            uses += 1
            defer { checkedStore = true }
            return (built, built == nil && !checkedStore, built == nil && uses >= 2)
        }
        if let ready { return ready }
        if checkStore, let stored = try SenderIndex.storedCopy(db, version: version, maxId: maxId) {
            lock.withLock { if self.version == version && self.maxId == maxId { built = stored } }
            return stored
        }
        guard due else {
            lock.withLock { if self.version == version && self.maxId == maxId { copyDue = true } }
            return nil
        }
        let index = try SenderIndex(db, version: version, maxId: maxId)
        lock.withLock { if self.version == version && self.maxId == maxId { built = index } }
        return index
    }

    /// Whether a search used the SQL for want of a stored copy (then cleared).
    func takeCopyDue() -> Bool {
        lock.withLock {
            defer { copyDue = false }
            return copyDue
        }
    }
}
