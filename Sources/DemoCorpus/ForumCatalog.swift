import Foundation

/// A mailing list: its address, List-Id, subjects and the sentences its members write.
struct MailingList: Sendable {
    let name: [UInt8]
    let address: [UInt8]
    let listId: [UInt8]
    let tag: [UInt8]
    /// Thread subjects, each with the sentence that opens its first message.
    let subjects: [Template]
    let openings: [Template]
    /// Sentences any message on the list may add.
    let sentences: [Template]
    let replies: [Template]
    /// The footer the list server appends to every message.
    let footer: [UInt8]

    init(name: String, address: String, tag: String, threads: [(subject: String, opening: String)],
         sentences: [String], replies: [String]) {
        self.name = Array(name.utf8)
        self.address = Array(address.utf8)
        listId = Array(address.replacingOccurrences(of: "@", with: ".").utf8)
        self.tag = Array("[\(tag)] ".utf8)
        subjects = Vocabulary.templates(threads.map(\.subject))
        openings = Vocabulary.templates(threads.map(\.opening))
        self.sentences = Vocabulary.templates(sentences)
        self.replies = Vocabulary.templates(replies)
        let domain = address.split(separator: "@").last.map(String.init) ?? "lists.example.org"
        let local = address.split(separator: "@").first.map(String.init) ?? name
        footer = Array("""
            _______________________________________________
            \(name) mailing list
            \(address)
            https://\(domain)/mailman/listinfo/\(local)
            """.utf8)
    }
}

enum ForumCatalog {
    static let lists: [MailingList] = [
        MailingList(
            name: "swift-users", address: "swift-users@lists.example.org", tag: "swift-users",
            threads: [
                ("Actor isolation warning with Swift {swift}",
                 "I'm migrating a package to Swift {swift} and the compiler complains about a non-sendable type crossing an actor boundary."),
                ("Sendable conformance for a class with a lock",
                 "I have a class that protects its state with a lock, and I'm not sure how to make it Sendable without @unchecked."),
                ("How to read a large file line by line",
                 "What is the fastest way to read a large log file line by line? Reading it all into memory is not an option, it is about {num} GB."),
                ("Package resolution is slow on Linux",
                 "Resolving packages takes several minutes on our Linux CI machines, but only seconds on macOS."),
                ("Strict concurrency and global variables",
                 "With strict concurrency checking, every global variable in our code base is now an error."),
                ("Parsing dates without DateFormatter",
                 "Is there a lightweight way to parse RFC 3339 dates without DateFormatter? It is the slowest part of our importer."),
                ("Linking a C library with SwiftPM",
                 "I'm trying to link a system C library from a SwiftPM package, and the linker cannot find the symbols on Linux."),
            ],
            sentences: [
                "Is there a recommended pattern for this, or should I mark the type @unchecked Sendable?",
                "I tried wrapping the state in a Mutex, but the warning did not go away.",
                "This works on macOS but fails to build on Linux with Swift {swift}.",
                "From the documentation it is not clear whether this is supported at all.",
                "Any pointers would be much appreciated.",
            ],
            replies: [
                "You can isolate the type to the main actor if it is only used from the UI.",
                "Mutex from the Synchronization module is the way to go here.",
                "Have you tried marking the closure as @Sendable?", "This is a known issue, there is an open bug for it.",
                "Thanks, that fixed it!", "FileHandle.bytes.lines works well for this on recent toolchains.",
                "A module map with a link directive should do it; check that pkg-config finds the library.",
            ]),
        MailingList(
            name: "sqlite-users", address: "sqlite-users@lists.example.org", tag: "sqlite",
            threads: [
                ("WAL mode and concurrent readers",
                 "We run SQLite in WAL mode with one writer and {num} readers, and occasionally see SQLITE_BUSY."),
                ("FTS5 ranking with bm25 weights",
                 "How do I give the subject column more weight than the body in FTS5 ranking?"),
                ("Database is locked errors under load",
                 "Under load our service logs \"database is locked\" errors a few times per hour."),
                ("Best page size for large databases",
                 "Our database is about {num} GB now; would a larger page size make reads faster?"),
                ("Slow query with a LIKE prefix",
                 "The query plan shows a full table scan for a LIKE prefix query, even though there is an index on the column."),
            ],
            sentences: [
                "Setting busy_timeout to 5000 helped, but I would like to understand the root cause.",
                "Is it safe to run VACUUM while readers are active?",
                "The table has about {bignum} thousand rows.",
                "We are on the latest release.",
            ],
            replies: [
                "Readers never block the writer in WAL mode; check for long-running read transactions.",
                "bm25() takes one weight per column, in the order the columns were declared.",
                "Run ANALYZE and look at the query plan again.", "A LIKE prefix can use the index only with COLLATE NOCASE.",
                "Thanks, the checkpoint was the problem.",
            ]),
        MailingList(
            name: "Cascade Hiking Club", address: "hiking@lists.example.net", tag: "Hiking",
            threads: [
                ("Trip report: Eagle Peak",
                 "We did the Eagle Peak loop last weekend, about {num} miles with great views at the top."),
                ("Carpool for Saturday's hike",
                 "I have {num} free seats in my car for Saturday, leaving from the park-and-ride at 7:00."),
                ("Trail conditions after the storm",
                 "The trail is muddy after the storm and a few trees are down near the second bridge."),
                ("Gear swap next month",
                 "The gear swap is on {date} at the community center, bring anything you no longer use."),
                ("Snowshoe trip in {month}",
                 "We are planning a snowshoe trip in {month}; rentals are available at the trailhead."),
            ],
            sentences: [
                "Please remember to register for the trip so we know how many permits to get.",
                "Bring water, layers and a headlamp.",
                "Photos are in the club album.",
            ],
            replies: [
                "I'd love a seat, thanks!", "Great report, the photos are beautiful.",
                "I can bring a spare pair of microspikes.", "Count me in.",
            ]),
        MailingList(
            name: "Maple Street Neighbors", address: "neighbors@groups.example.net", tag: "Neighbors",
            threads: [
                ("Lost cat on Maple Street",
                 "Our cat has been missing since {weekday}; she is grey with white paws and very shy."),
                ("Street fair volunteers needed",
                 "The street fair is on {date} and we still need volunteers for the lemonade stand."),
                ("Recommendations for a plumber?",
                 "Can anyone recommend a plumber? Our kitchen sink has been leaking for a week."),
                ("Road work starting Monday",
                 "The city will repave the street starting Monday, so parking will be limited for {num} days."),
                ("Book club meets on {weekday}",
                 "This month's book club pick is a mystery novel set in {city}."),
            ],
            sentences: [
                "Thanks in advance, neighbors!",
                "Please share with anyone on the street who is not on this list.",
            ],
            replies: [
                "We used Rivera Plumbing last year and they were great.", "I can help at the stand in the afternoon.",
                "I think I saw her near the park this morning!", "Thanks for the heads-up.",
            ]),
    ]
}
