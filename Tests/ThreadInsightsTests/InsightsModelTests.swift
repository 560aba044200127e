import Foundation
import MailModel
import ThreadInsights
import XCTest

/// The summarizer and the reply suggester with the real model.
final class InsightsModelTests: XCTestCase {
    /// Capitalised words, numbers (with their separators) and times of a text.
    static func facts(_ text: String) -> Set<String> {
        let regex = try! NSRegularExpression(pattern: #"\p{Lu}[\p{L}'-]*|\d[\d.,:/-]*\d|\d"#)
        return Set(regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap {
            Range($0.range, in: text).map { String(text[$0]) }
        })
    }

    func testSummariesAreExtractive() throws {
        let summarizer = ExtractiveSummarizer(embedder: try Model.embedder())
        for thread in try FixtureThread.all() {
            let messages = thread.conversation
            let summary = try summarizer.summarize(messages)
            let points = summary.points.filter { $0.kind == .point }
            XCTAssertTrue((2...4).contains(points.count), "\(thread.id): \(points.count) sentences")
            // Every sentence is where its source says, in that email's cleaned text.
            for p in summary.points {
                let message = try XCTUnwrap(messages.first { $0.emailId == p.source.emailId })
                let text = Array(MessageCleaner.clean(message.body).text)
                XCTAssertEqual(String(text[p.source.start..<p.source.end]), p.sentence, thread.id)
                XCTAssertEqual(p.source.author, message.author)
            }
            // In thread order.
            let order = points.map { ($0.source.emailId, $0.source.start) }
            XCTAssertEqual(order.map(\.0), order.map(\.0).sorted(), thread.id)
            // No name, number or date that the thread does not have (bodies and headers' names).
            let threadText = messages.map { m in
                ([m.from?.name ?? "", m.from?.email ?? ""] + m.to.map { ($0.name ?? "") + " " + $0.email } + [m.body]).joined(separator: "\n")
            }.joined(separator: "\n")
            let known = Self.facts(threadText)
            for p in summary.points {
                let unknown = Self.facts(p.text).subtracting(known).subtracting(["Waiting"])
                XCTAssertTrue(unknown.isEmpty, "\(thread.id): \(p.text) has \(unknown)")
            }
        }
    }

    func testWaitingOnTheRecipientsOfALastQuestion() throws {
        let summarizer = ExtractiveSummarizer(embedder: try Model.embedder())
        let threads = Dictionary(uniqueKeysWithValues: try FixtureThread.all().map { ($0.id, $0) })
        let offsite = try summarizer.summarize(try XCTUnwrap(threads["offsite"]).conversation)
        let waiting = try XCTUnwrap(offsite.points.last)
        XCTAssertEqual(waiting.kind, .waitingOn)
        // The question addresses Carla by name ("Carla, could you …"): it waits on her, not on every recipient.
        XCTAssertEqual(waiting.waitingOn, ["Carla Diaz"])
        XCTAssertEqual(waiting.sentence, "Carla, could you confirm the room booking by Friday?")
        // A list question: the previous sender is who it waits on.
        let fpga = try summarizer.summarize(try XCTUnwrap(threads["fpga"]).conversation)
        XCTAssertEqual(fpga.points.last?.waitingOn, ["Rita Gomez"])
        XCTAssertEqual(fpga.points.last?.text, "Waiting on Rita Gomez: Is the patch also needed for the N310 image?")
        // No question at the end: nothing is waited for.
        let statement = ConversationMessage(emailId: 9, from: Address(name: "Ann", email: "ann@example.com"), to: [],
                                            date: nil, body: "The room is booked.")
        XCTAssertNil(try summarizer.summarize(try XCTUnwrap(threads["offsite"]).conversation.dropLast() + [statement])
            .points.first { $0.kind == .waitingOn })
        // The same last question in bulk mail (a newsletter's, an offer's): nothing is waited for.
        var bulk = try XCTUnwrap(threads["offsite"]).conversation
        bulk[bulk.count - 1].isBulk = true
        XCTAssertNil(try summarizer.summarize(bulk).points.first { $0.kind == .waitingOn })
        XCTAssertTrue(ConversationMessage.isBulk(category: .promotions) && ConversationMessage.isBulk(category: .updates)
                      && ConversationMessage.isBulk(category: .social))
        XCTAssertFalse(ConversationMessage.isBulk(category: .primary) || ConversationMessage.isBulk(category: .forums)
                       || ConversationMessage.isBulk(category: .uncategorized))
    }

    func testAVeryLongConversationEmbedsABoundedNumberOfSentences() throws {
        let summarizer = ExtractiveSummarizer(embedder: try Model.embedder())
        let people = [Address(name: "Ann Lee", email: "ann@example.com"), Address(name: "Bob Stone", email: "bob@example.com")]
        // Each message's words its own (a name made of letters: numbers alone would make the messages
        // one template, whose repeated sentences are no candidates).
        let messages = (0..<120).map { i in
            let name = String(UnicodeScalar(UInt8(97 + i % 26))) + String(UnicodeScalar(UInt8(97 + i / 26))) + "x"
            return ConversationMessage(emailId: Int64(i + 1), from: people[i % 2], to: [people[(i + 1) % 2]], date: nil,
                                       body: "Build \(name) of the firmware passed the radio tests. The receiver noise figure of build \(name) was within the limits today.\nWe ship build \(name) with the next release.")
        }
        let summary = try summarizer.summarize(messages)
        XCTAssertEqual(summary.sentences, ExtractiveSummarizer.maximumCandidates)
        XCTAssertEqual(summary.points.count, 4)
    }

    func testRepliesOnlyForQuestionsAndRequestsFromDistinctIntents() throws {
        let suggester = RetrievalReplySuggester(embedder: try Model.embedder())
        let ask = ConversationMessage(emailId: 1, from: Address(name: "Ann", email: "ann@example.com"), date: nil,
                                      body: "Hi Bob,\n\nCan we meet tomorrow at 10 to go over the budget?\n\nThanks,\nAnn")
        let answer = try suggester.suggest(for: ask)
        XCTAssertTrue(answer.triggered)
        XCTAssertEqual(answer.suggestions.count, 3)
        XCTAssertEqual(Set(answer.suggestions.map(\.intent)).count, 3)
        XCTAssertTrue(answer.suggestions.contains { $0.intent == "schedule" || $0.intent == "yes" }, "\(answer.suggestions)")
        XCTAssertEqual(answer.triggers.count, 1)
        let thanks = ConversationMessage(emailId: 2, from: nil, date: nil, body: "The report is attached. Have a good weekend.")
        let none = try suggester.suggest(for: thanks)
        XCTAssertFalse(none.triggered)
        XCTAssertTrue(none.suggestions.isEmpty)
        for reply in ReplyBank.replies.prefix(3) { XCTAssertFalse(reply.text.isEmpty) }
    }
}
