// swift-tools-version: 6.0
import PackageDescription

let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")

let package = Package(
    name: "MailSearch",
    platforms: [.macOS(.v14)],
    products: [
        // The lean front end: runs a one-shot `search` itself, hands every other command to mailsearch-full.
        .executable(name: "mailsearch", targets: ["mailsearch"]),
        // Every command (ArgumentParser): what `mailsearch` execs for all but a plain search.
        .executable(name: "mailsearch-full", targets: ["mailsearch-full"]),
        .executable(name: "mailsearch-bench", targets: ["MailSearchBench"]),
        .library(name: "MailSearchKit", targets: ["MailSearchKit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // AES-GCM and scrypt for SecretStore's encrypted file. 4.x is what swift-certificates and
        // swift-nio-extras already bring; 3.12.3 is the oldest with the scrypt SecretStore calls.
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        // Value types shared by every layer, and the one lock box (`LockedBox`). No dependencies.
        .target(name: "MailModel"),
        // RFC 5322 / MIME / charsets / HTML-to-text / mbox and Maildir readers. Pure; depends on nothing
        // so that the fuzzer can compile it on its own.
        .target(
            name: "MailParsing",
            // Every import, search and summary parses and cleans mail: keep the debug test run usable.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        // mail.sqlite: schema, migrations, threading, contacts, recent searches.
        .target(name: "MailStore", dependencies: ["MailModel", "MailParsing", grdb]),
        // search.sqlite (FTS5), SearchIndexManager, VectorSearchEngine.
        .target(
            name: "SearchIndex",
            dependencies: [
                "MailModel", "MailStore", "CKernels", "CRanking", grdb, .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),
        // FTS5 auxiliary function ms_bm25: FTS5's BM25 with row lengths read from memory.
        .target(name: "CRanking", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        // CBLAS: Debian's OpenBLAS on Linux (Accelerate on Apple platforms), loaded with dlopen when
        // the encoder first runs, so that processes that never embed do not load it.
        .target(name: "COpenBLAS"),
        // Hand-written C kernels with run-time CPU dispatch (AVX2/FMA/F16C or portable): the
        // half-precision small-batch linear layer of the query encoder, and the int8 vector scan.
        .target(
            name: "CKernels",
            // Intrinsics unoptimised are slower than the plain loops: keep debug builds usable.
            cSettings: [.unsafeFlags(["-O2"], .when(configuration: .debug))]
        ),
        // WordPiece tokenizer, safetensors reader, BERT encoder (all-MiniLM-L6-v2), model files.
        .target(
            name: "Embedding",
            dependencies: ["CKernels", .target(name: "COpenBLAS", condition: .when(platforms: [.linux]))],
            // The encoder's loops are 20–50× slower unoptimised; keep debug builds (and the test run) usable.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        // Categories on the device (spec 001 §5.6.2): header signals, the rules, the embedding classifier,
        // behind the `Categorizer` protocol. Pure: no storage.
        .target(name: "Categorization", dependencies: ["MailModel", "MailParsing"]),
        // Import pipeline: sources (mbox, Maildir, .eml trees) -> parse -> store + index, in batches.
        .target(name: "MailImport", dependencies: ["MailModel", "MailParsing", "MailStore", "SearchIndex", "Categorization"]),
        // Query parsing, the hybrid search use case, RRF fusion, cache.
        .target(name: "SearchEngine", dependencies: ["MailModel", "MailParsing", "MailStore", "SearchIndex", "Embedding"]),
        // The service: the single way in (search, ingest, delete, rebuild, background embedding,
        // status) and the Codable wire types the CLI's --json and the HTTP API share.
        .target(
            name: "MailSearchKit",
            dependencies: [
                "MailModel", "MailParsing", "MailStore", "SearchIndex", "Embedding", "SearchEngine", "MailImport",
                "HTMLSanitizer", "Categorization", "ThreadInsights", "MailComposition", "SMTPProtocol",
            ]
        ),
        // `mailsearch serve`: the search page and the Hummingbird 2 JSON API over MailSearchService and its security rules
        // (loopback by default, bearer token, Host check against DNS rebinding, CSRF, no CORS).
        .target(
            name: "MailSearchServer",
            dependencies: [
                "MailSearchKit", "MailModel", "MailComposition", "SearchEngine", "SecretStore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The search page (HTML, CSS, JavaScript modules), built into the binary.
            resources: [.embedInCode("Web")]
        ),
        // Google's gumbo HTML5 parser, Debian's libgumbo-dev.
        .systemLibrary(name: "CGumbo", pkgConfig: "gumbo", providers: [.apt(["libgumbo-dev"])]),
        // Untrusted email HTML -> a safe body fragment (allowlist over gumbo's tree; remote images,
        // tracking pixels, cid: images). Pure: no I/O.
        .target(name: "HTMLSanitizer", dependencies: ["CGumbo"]),
        // Thread summaries and reply suggestions on the device: extractive (MiniLM sentence vectors,
        // MMR) and retrieval over a curated reply set (Resources/replies.tsv). Pure: no storage.
        .target(
            name: "ThreadInsights",
            dependencies: ["Embedding", "MailModel", "MailParsing"],
            resources: [.embedInCode("Resources/replies.tsv")],
            // The cleaner and classifier run over whole corpora in the tests: optimised in debug too.
            swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]
        ),
        // Seeded synthetic mail for the demo, the tests and the benchmarks.
        .target(name: "DemoCorpus"),
        // IMAP4rev1 protocol layer: response framing and parsing, command encoding. Pure: no NIO,
        // no dependencies, so that the tests and the fuzzer drive it with bytes alone.
        .target(name: "IMAPProtocol"),
        // What the mail clients share: connecting (implicit TLS or STARTTLS), the channel handler (silence
        // timer on the event loop's clock, failures), the response queue, one operation at a time, and the
        // state machines of the channel and the session. Each client brings its grammar as a `ClientDialect`.
        .target(
            name: "ClientSupport",
            dependencies: [
                "MailModel",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The IMAP client on SwiftNIO + NIOSSL: implicit TLS or STARTTLS, commands and their
        // responses, literals, IDLE, timeouts. Framing in channel handlers; the rest is async.
        .target(
            name: "IMAPClient",
            dependencies: [
                "IMAPProtocol", "ClientSupport", "MailModel",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // SMTP's protocol layer: reply framing, EHLO capabilities, command encoding, SASL, dot-stuffing,
        // envelope addresses that cannot inject a line. Pure: no NIO, no dependencies.
        .target(name: "SMTPProtocol"),
        // The SMTP client on SwiftNIO + NIOSSL: implicit TLS or STARTTLS, AUTH, SIZE, per-recipient results, timeouts.
        .target(
            name: "SMTPClient",
            dependencies: [
                "SMTPProtocol", "ClientSupport", "MailModel",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // Outgoing mail as RFC 5322 + MIME bytes: headers (RFC 2047), Message-ID, reply headers, text, HTML,
        // attachments. Pure: no I/O.
        .target(name: "MailComposition", dependencies: ["SMTPProtocol", "MailModel"]),
        // The sync engine (spec 001 §5.2): accounts, per-folder UID state, initial and incremental
        // sync, flags, reconciliation, IDLE; writes through MailSearchService. Also the send queue's
        // sender (SMTP, then a copy in Sent) and the drafts' copies in the Drafts folder.
        .target(
            name: "IMAPSync",
            dependencies: [
                "IMAPClient", "IMAPProtocol", "MailSearchKit", "MailModel", "MailImport",
                "SMTPClient", "SMTPProtocol", "MailComposition", "ClientSupport",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The freedesktop Secret Service through libsecret-1.so.0 loaded with dlopen (never linked): the few
        // libsecret and glib functions SecretStore needs, declared here, so no -dev package is needed to build.
        .target(name: "CSecret", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        // Account passwords and OAuth tokens: the desktop's Secret Service when one answers, else secrets.enc
        // (AES-GCM, the key derived with scrypt from the user's passphrase).
        .target(
            name: "SecretStore",
            dependencies: [
                "CSecret",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // `mailsearch search` once its arguments are read: options to output, shared by both front ends.
        // What every command prints with: JSON for --json, dates, byte counts, fixed decimals, and the error shown
        // as `Error: …`. Foundation only, so that both front ends link it.
        .target(name: "CLIOutput"),
        .target(name: "SearchCLI", dependencies: ["CLIOutput", "MailModel", "SearchEngine", "MailSearchKit"]),
        // The lean `mailsearch`: a one-shot keyword search without ArgumentParser, SwiftNIO, Hummingbird or
        // IMAP in the process; everything else (semantic and hybrid searches included) is exec'd to
        // mailsearch-full. On Linux a fully static executable: no dynamic loader, no symbol binding, no
        // relocation against shared libraries (it starts in ~1 ms instead of ~3.4). lld, because gold
        // fails on this link. Debian's libsqlite3-dev ships the static libsqlite3.a it needs.
        .executableTarget(
            name: "mailsearch", dependencies: ["CLIOutput", "SearchCLI", "SearchEngine"],
            linkerSettings: [
                .unsafeFlags(["-static-stdlib", "-static-executable", "-use-ld=lld"], .when(platforms: [.linux])),
                // What static Foundation needs besides itself; a release build with --static-swift-stdlib
                // finds these on its own, a debug build does not.
            ] + ["CoreFoundation", "_FoundationICU", "_FoundationCShims", "_FoundationCollections", "swiftSynchronization"]
                .map { .linkedLibrary($0, .when(platforms: [.linux])) }
        ),
        // mailsearch-full: every command (swift-argument-parser).
        .executableTarget(
            name: "mailsearch-full",
            dependencies: [
                "MailModel", "SearchIndex", "Embedding", "SearchEngine",
                "MailImport", "DemoCorpus", "MailSearchKit", "MailSearchServer", "IMAPSync", "IMAPProtocol", "SecretStore",
                "IMAPClient", "SMTPProtocol", "SMTPClient", "MailComposition", "CLIOutput", "SearchCLI", "ThreadInsights",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "MailSearchBench",
            dependencies: [
                "MailModel", "MailParsing", "MailStore", "SearchIndex", "Embedding", "SearchEngine",
                "MailImport", "DemoCorpus", "ThreadInsights",
            ],
            path: "Benchmarks/MailSearchBench"
        ),
        .testTarget(name: "MailParsingTests", dependencies: ["MailParsing"]),
        .testTarget(name: "CategorizationTests", dependencies: ["Categorization", "MailParsing", "MailModel"]),
        .testTarget(name: "HTMLSanitizerTests", dependencies: ["HTMLSanitizer", "CGumbo"]),
        .testTarget(name: "IMAPProtocolTests", dependencies: ["IMAPProtocol"]),
        .testTarget(name: "SMTPProtocolTests", dependencies: ["SMTPProtocol"]),
        // The SMTP channel handler driven with bytes in an EmbeddedChannel (framing, STARTTLS, timeouts).
        .testTarget(
            name: "SMTPClientTests",
            dependencies: [
                "SMTPClient", "SMTPProtocol",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The IMAP channel handler and connection driven with bytes on embedded channels and a virtual clock
        // (framing, greeting, commands, silence timer, STARTTLS), and ClientSupport's state machines and queue.
        .testTarget(
            name: "IMAPClientTests",
            dependencies: [
                "IMAPClient", "IMAPProtocol", "ClientSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // The message builder, its output read back by the project's own MIME parser.
        .testTarget(name: "MailCompositionTests", dependencies: ["MailComposition", "SMTPProtocol", "MailParsing", "MailModel"]),
        // Against a real Dovecot, started by Tests/IMAP/dovecot.py (IMAP, and SMTP through its submission service).
        .testTarget(
            name: "IMAPSyncTests",
            dependencies: [
                "IMAPSync", "IMAPClient", "IMAPProtocol", "MailSearchKit", "MailStore", "MailModel", "SearchEngine",
                "MailParsing", "Embedding", "SMTPClient", "SMTPProtocol", "MailComposition", grdb,
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                "SecretStore",
            ]
        ),
        // The encrypted file, and the Secret Service store against a real gnome-keyring-daemon on a private D-Bus.
        .testTarget(name: "SecretStoreTests", dependencies: ["SecretStore"]),
        .testTarget(name: "MailStoreTests", dependencies: ["MailStore", "MailModel", "MailParsing"]),
        .testTarget(name: "ThreadInsightsTests", dependencies: ["ThreadInsights", "Embedding", "MailModel"]),
        .testTarget(name: "SearchIndexTests", dependencies: ["SearchIndex", "MailStore", "MailModel"]),
        .testTarget(name: "EmbeddingTests", dependencies: ["Embedding", "CKernels"]),
        .testTarget(
            name: "SearchEngineTests",
            dependencies: ["SearchEngine", "MailImport", "MailStore", "MailParsing", "SearchIndex", "DemoCorpus", "MailModel", "Embedding"]
        ),
        .testTarget(name: "MailImportTests", dependencies: ["MailImport", "MailStore", "MailParsing", "DemoCorpus", "MailModel"]),
        .testTarget(name: "CLITests", dependencies: ["MailStore", "MailModel", grdb]),
        .testTarget(
            name: "ServiceTests",
            dependencies: [
                "MailSearchKit", "MailStore", "SearchEngine", "Embedding", "MailModel", "DemoCorpus", "ThreadInsights", "CLIOutput", "SearchCLI", grdb,
            ]
        ),
        .testTarget(
            name: "ServerTests",
            dependencies: [
                "MailSearchServer", "MailSearchKit", "MailModel", "MailStore", "MailParsing", grdb,
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
    ]
)
