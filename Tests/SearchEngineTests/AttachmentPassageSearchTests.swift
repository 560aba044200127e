import Embedding
import Foundation
import GRDB
import MailModel
import MailParsing
import MailStore
import SearchEngine
import SearchIndex
import XCTest

/// Semantic search of the text read from attachments: passages embedded once per attachment and
/// model, searched beside the emails' own vectors, a hit naming the attachment and the passage.
final class AttachmentPassageSearchTests: XCTestCase {
    typealias Spec = SearchFixture.Spec

    /// A mailbox whose contract email says nothing of its content; the contract's text is stored
    /// as `import` stores what it read. Returns the fixture, the contract email and its attachment.
    private func mailbox() throws -> (SearchFixture, Int64, Int64) {
        let f = try SearchFixture()
        let ids = try f.add([
            Spec(subject: "Signed copy", body: "see attached", hasAttachment: true,
                 attachments: [("contract.pdf", "application/pdf")]),
            Spec(subject: "Lunch on Friday", body: "sandwiches and salad"),
            Spec(subject: "Quarterly numbers", body: "revenue grew in the third quarter"),
        ])
        let attachment = try XCTUnwrap(try f.store.attachmentTexts(emailId: ids[0]).first).attachmentId
        // About 950 characters, then the clause: two passages of at most 1,000.
        let filler = (0..<18).map { "Clause \($0) describes the delivery schedule of parts." }.joined(separator: " ")
        let text = filler + "\n\n" + "Either party may end this agreement with ninety days written notice of termination."
        let texts = try f.store.saveAttachmentTexts([(attachment, ids[0], "ok", nil, text)])
        try f.index.updateAttachments(texts)
        return (f, ids[0], attachment)
    }

    func testASemanticHitOnAPassageNamesTheAttachmentAndShowsThePassage() async throws {
        let (f, contract, _) = try mailbox()
        let embedder = HashingEmbedder()
        let vectors = VectorSearchEngine()
        let passages = PassageVectors()
        let indexer = EmbeddingIndexer(store: f.store, embedder: embedder)
        try indexer.run(vectors: vectors)
        XCTAssertEqual(try f.store.attachmentsWithoutPassagesCount(model: indexer.modelName), 1)
        XCTAssertEqual(try indexer.runPassages(passages: passages), 1)
        XCTAssertEqual(try indexer.runPassages(passages: passages), 0, "nothing is embedded twice")
        XCTAssertEqual(try f.store.passageCounts(model: indexer.modelName).attachments, 1)
        XCTAssertGreaterThan(passages.count, 1)

        let query = "ending the agreement with written notice of termination"
        let without = VectorSemanticRanker(embedder: embedder, vectors: vectors, minimumSimilarity: 0.3)
        let before = try await f.useCase(semantic: without).search(query, mode: .semantic)
        XCTAssertFalse(before.results.contains { $0.emailId == contract }, "the email's own text says nothing of it")

        let ranker = VectorSemanticRanker(embedder: embedder, vectors: vectors, passages: passages, minimumSimilarity: 0.3)
        let response = try await f.useCase(semantic: ranker).search(query, mode: .semantic)
        let hit = try XCTUnwrap(response.results.first { $0.emailId == contract })
        XCTAssertEqual(hit.why.semantic?.attachment, "contract.pdf")
        XCTAssertEqual(hit.why.semantic?.passage, 2, "the notice clause is the second passage")
        XCTAssertEqual(hit.why.attachment, "contract.pdf")
        XCTAssertTrue(hit.snippet.hasPrefix("in attachment contract.pdf: Either party may end this agreement"), hit.snippet)

        // Filters apply to passages through their email.
        let filtered = try await f.useCase(semantic: ranker).search(query + " has:pdf", mode: .semantic)
        XCTAssertEqual(filtered.results.map(\.emailId), [contract])
        let elsewhere = try await f.useCase(semantic: ranker).search(query + " in:trash", mode: .semantic)
        XCTAssertTrue(elsewhere.results.isEmpty)
    }

    /// Stored passages follow their text and their email: read again, the text's passages go (and
    /// are embedded anew); a deleted email takes its passages from the store and the vectors.
    func testPassagesFollowTheTextAndTheEmail() throws {
        let (f, contract, attachment) = try mailbox()
        let embedder = HashingEmbedder()
        let indexer = EmbeddingIndexer(store: f.store, embedder: embedder, modelName: "m")
        let passages = PassageVectors()
        XCTAssertEqual(try indexer.runPassages(passages: passages), 1)
        XCTAssertEqual(try f.store.attachmentsWithoutPassagesCount(model: "other"), 1, "another model embeds it again")

        try f.store.saveAttachmentTexts([(attachment, contract, "ok", nil, "A new short text.")])
        XCTAssertEqual(try f.store.passageCounts(model: "m").passages, 0)
        XCTAssertEqual(try indexer.runPassages(passages: passages), 1)
        XCTAssertEqual(try f.store.passageCounts(model: "m").passages, 1)

        let reloaded = PassageVectors()
        try reloaded.load(from: f.store, model: "m")
        XCTAssertEqual(reloaded.count, 1)
        try f.store.deleteEmail(id: contract)
        XCTAssertEqual(try f.store.passageCounts(model: "m").passages, 0)
        reloaded.remove(emailIds: [contract])
        XCTAssertEqual(reloaded.count, 0)
        XCTAssertEqual(try indexer.runPassages(passages: passages), 0)
    }

    /// Unreadable and unsupported attachments have no text, so no passages; a run stopped between
    /// rounds keeps what it stored and the next one does the rest.
    func testOnlyTextIsEmbeddedAndAStoppedRunResumes() throws {
        let f = try SearchFixture()
        let ids = try f.add((0..<5).map { i in
            Spec(subject: "file \(i)", hasAttachment: true, attachments: [("f\(i).pdf", "application/pdf")])
        })
        var rows: [(attachmentId: Int64, emailId: Int64, status: String, detail: String?, text: String)] = []
        for (i, id) in ids.enumerated() {
            let attachment = try XCTUnwrap(try f.store.attachmentTexts(emailId: id).first).attachmentId
            rows.append(i == 0 ? (attachment, id, "unreadable", "pdftotext failed", "")
                               : (attachment, id, "ok", nil, "document \(i) text"))
        }
        try f.store.saveAttachmentTexts(rows)
        let indexer = EmbeddingIndexer(store: f.store, embedder: HashingEmbedder())
        var rounds = 0
        XCTAssertEqual(try indexer.runPassages(attachmentsPerRound: 2, shouldStop: { rounds += 1; return rounds > 1 }), 2)
        XCTAssertEqual(try f.store.attachmentsWithoutPassagesCount(model: indexer.modelName), 2)
        XCTAssertEqual(try indexer.runPassages(attachmentsPerRound: 2), 2)
        XCTAssertEqual(try f.store.passageCounts(model: indexer.modelName).attachments, 4)
    }
}
