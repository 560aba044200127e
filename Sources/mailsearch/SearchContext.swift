import ArgumentParser
import Embedding
import Foundation
import MailModel
import MailStore
import SearchEngine
import SearchIndex

/// Options that pin the clock and time zone, so date words ("last week") give reproducible results.
struct ClockOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Pretend it is this moment (ISO-8601, e.g. 2024-06-15T10:00:00Z).", valueName: "iso-8601"))
    var now: String?

    @Option(help: ArgumentHelp("Time zone for date words (e.g. Europe/Berlin). Default: the system's.", valueName: "id"))
    var timeZone: String?

    func validate() throws {
        if let now, Self.parseDate(now) == nil { throw ValidationError("--now \"\(now)\" is not an ISO-8601 date-time like 2024-06-15T10:00:00Z") }
        if let timeZone, TimeZone(identifier: timeZone) == nil { throw ValidationError("--time-zone \"\(timeZone)\" is not a known time zone identifier (like Europe/Berlin)") }
    }

    func parser() -> SearchQueryParser {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone.flatMap(TimeZone.init(identifier:)) ?? TimeZone.current
        if let now, let fixed = Self.parseDate(now) {
            return SearchQueryParser(calendar: calendar, now: { fixed })
        }
        return SearchQueryParser(calendar: calendar, now: { Date() })
    }

    static func parseDate(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withFullDate]
        return f.date(from: text)
    }
}

/// Opens the store and the search index, printing index notices (E-05) on standard error.
struct SearchContext {
    let store: MailStore
    let index: SearchIndexManager

    init(global: GlobalOptions, readOnly: Bool = false) throws {
        store = try global.openStore(readOnly: readOnly)
        do {
            index = try SearchIndexManager(store: store, notices: { message in
                FileHandle.standardError.write(Data("note: \(message)\n".utf8))
            })
        } catch {
            throw CLIError("cannot open the search index in \(store.directory.url.path): \(error). " +
                           "Run `mailsearch index rebuild` to recreate it from mail.sqlite.")
        }
    }

    /// The semantic ranker when the model is installed and embeddings exist; otherwise a ranker
    /// that reports why semantic search is off (E-04: the search still runs, keyword-only).
    func semanticRanker(minimumSimilarity: Double = VectorSemanticRanker.defaultMinimumSimilarity) throws -> VectorSemanticRanker {
        let vectors = VectorSearchEngine()
        let status = ModelStore().status()
        guard status.isInstalled else {
            return VectorSemanticRanker(embedder: nil, vectors: vectors,
                                        missingModelReason: "no embedding model installed (`mailsearch model install`)")
        }
        guard try store.embeddingCount() > 0 else {
            return VectorSemanticRanker(embedder: nil, vectors: vectors,
                                        missingModelReason: "no email has an embedding yet (run `mailsearch index embed`)")
        }
        try vectors.load(from: store)
        let embedder = try MiniLMEmbedder(modelDirectory: URL(fileURLWithPath: status.directory))
        return VectorSemanticRanker(embedder: embedder, vectors: vectors, minimumSimilarity: minimumSimilarity)
    }

    /// Index status with embedding coverage and whether semantic search can run.
    func indexStatus() throws -> IndexStatus {
        let embedded = try store.embeddingCount()
        let model = ModelStore().status()
        let semantic: String
        if !model.isInstalled {
            semantic = "off: no embedding model installed (`mailsearch model install`)"
        } else if embedded == 0 {
            semantic = "off: no email has an embedding yet (`mailsearch index embed`)"
        } else {
            semantic = "on"
        }
        return try index.status(embeddedEmails: embedded, semanticSearch: semantic)
    }

    /// Resolves `--scope all|folder:NAME` into a search scope.
    func scope(_ text: String?) throws -> SearchScope {
        guard let text, !text.isEmpty, text.lowercased() != "all" else { return .allMail }
        guard text.lowercased().hasPrefix("folder:") else {
            throw CLIError("--scope must be `all` or `folder:NAME` (got \"\(text)\")")
        }
        let name = String(text.dropFirst("folder:".count))
        let folders = try store.folders()
        let match = folders.first { $0.path == name } ?? folders.first { $0.path.lowercased() == name.lowercased() }
            ?? folders.first { $0.name.lowercased() == name.lowercased() }
        guard let folder = match else {
            throw CLIError("no folder named \"\(name)\"; `mailsearch folders` lists them")
        }
        return .currentFolder(folderId: folder.id)
    }
}
