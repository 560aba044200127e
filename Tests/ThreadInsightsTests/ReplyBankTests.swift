import Embedding
import Foundation
import MailModel
import ThreadInsights
import XCTest

/// The curated reply set and what the docs say of it.
final class ReplyBankTests: XCTestCase {
    func testTheDocsCountTheRepliesAndIntentsTheSetHas() throws {
        let replies = ReplyBank.replies
        let intents = Set(replies.map(\.intent))
        XCTAssertFalse(replies.contains { $0.text.isEmpty }, "no empty reply")
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        for (path, phrase) in [("README.md", "\(replies.count) replies in \(intents.count) intents"),
                               ("ARCHITECTURE.md", "\(replies.count) curated replies\nin \(intents.count) intents"),
                               ("docs/architecture-notes.md", "\(replies.count) curated replies in \(intents.count) intents"),
                               ("Sources/ThreadInsights/RetrievalReplySuggester.swift", "\(replies.count) in\n/// \(intents.count) intents")] {
            let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
            XCTAssertTrue(text.contains(phrase), "\(path) should say \"\(phrase)\" (the set: \(replies.count) replies, \(intents.count) intents)")
        }
    }
}

/// Which intents an email gives occasion for.
final class ReplyIntentsTests: XCTestCase {
    func testTheGateKnowsEveryIntentOfTheSet() {
        XCTAssertEqual(ReplyIntents.all, Set(ReplyBank.replies.map(\.intent)))
    }

    func testATechnicalQuestionGetsNeitherACongratulationNorAMeetingTime() {
        let allowed = ReplyIntents.allowed(for: "How do I reshape a sparse matrix without making it dense? The docs only show arrays.")
        XCTAssertFalse(allowed.contains("congrats"))
        XCTAssertFalse(allowed.contains("schedule"))
        XCTAssertTrue(allowed.contains("help"))
        XCTAssertTrue(allowed.contains("thanks"))
    }

    func testNewsAndTalkOfMeetingOpenTheirIntents() {
        XCTAssertTrue(ReplyIntents.allowed(for: "I'm happy to announce that I got promoted! Drinks on Friday?").contains("congrats"))
        XCTAssertTrue(ReplyIntents.allowed(for: "Can we meet to go over the budget?").contains("schedule"))
        XCTAssertTrue(ReplyIntents.allowed(for: "Are you free at 3pm for a quick review?").contains("schedule"))
        XCTAssertFalse(ReplyIntents.allowed(for: "Can we meet to go over the budget?").contains("congrats"))
        // A word inside an address or a link is not talk of meeting (a real list question was offered
        // "I'll send a calendar invite" for its author's address skip@calendar.com).
        XCTAssertFalse(ReplyIntents.allowed(for: "Should I delete duplicate spam before training? skip@calendar.com").contains("schedule"))
        XCTAssertFalse(ReplyIntents.allowed(for: "Is https://www.meeting-example.org/won safe?").contains("schedule"))
        // "won't" is no win (a spam-filter question was offered "Nice work on this!").
        XCTAssertFalse(ReplyIntents.allowed(for: "Please try again; it won't be long until you see why.").contains("congrats"))
        XCTAssertTrue(ReplyIntents.allowed(for: "We won the contract! Can you tell the team?").contains("congrats"))
    }

    /// "meet" that is no meeting (found judging usrp-users' technical questions offered "Can we meet on
    /// Monday?"), and meetings that still are.
    func testMeetingARequirementOrRunningIntoAnIssueIsNoTalkOfMeeting() {
        for text in ["I cannot meet timing with the clock selected in the yml file.",
                     "Because I meet some of hardware real time issue, I must use the power button.",
                     "Is there a way to meet the timing constraints of the ce clock?",
                     "At what time do the samples arrive relative to the PPS edge?",
                     "The host falls behind and then tries to catch up by discarding late packets: why?",
                     "To reach the local coffee shop, will I need a directional antenna?"] {
            XCTAssertFalse(ReplyIntents.allowed(for: text).contains("schedule"), text)
        }
        for text in ["Could we meet with the vendor next week?", "Let's meet up after the review.", "I'd like to meet you in person.",
                     "Is the meeting still on for Tuesday?", "What time works for you tomorrow?", "We need to meet to settle the budget.",
                     "Please RSVP for the reception by June 8th.", "Care to attend?", "Shall we catch up over coffee next week?"] {
            XCTAssertTrue(ReplyIntents.allowed(for: text).contains("schedule"), text)
        }
    }

    /// A reply of another intent that speaks of meeting needs talk of meeting too.
    func testRepliesThatSpeakOfMeetingNeedTalkOfMeeting() throws {
        XCTAssertTrue(ReplyIntents.speaksOfMeeting("Unfortunately I can't make it."))
        XCTAssertTrue(ReplyIntents.speaksOfMeeting("I'll follow up after the meeting."))
        XCTAssertTrue(ReplyIntents.speaksOfMeeting("Sorry, I'm not available then."))
        XCTAssertTrue(ReplyIntents.speaksOfMeeting("I'll have to pass this time."))
        XCTAssertFalse(ReplyIntents.speaksOfMeeting("Let me get back to you on that."))
        let suggester = RetrievalReplySuggester(embedder: ReplyRankerTests.SameVectorEmbedder(), replies: [
            CannedReply(intent: "no", text: "Unfortunately I can't make it."),
            CannedReply(intent: "help", text: "Try a newer driver."),
        ])
        let technical = try suggester.rank("Why does the driver fail to load the FPGA image?").map(\.text)
        XCTAssertFalse(technical.contains("Unfortunately I can't make it."), "\(technical)")
        let invitation = try suggester.rank("Can we meet on Friday to go over the plan?").map(\.text)
        XCTAssertTrue(invitation.contains("Unfortunately I can't make it."), "\(invitation)")
    }
}

/// The reply ranker's lexical part: the TF-IDF of message and reply, with the mailbox's document
/// frequencies, standardized and added to the semantic score.
final class ReplyRankerTests: XCTestCase {
    /// Every text the same vector: the semantic score cannot tell replies apart, the words must.
    struct SameVectorEmbedder: Embedder {
        var dimension: Int { 4 }
        func embed(_ texts: [String]) throws -> [[Float]] { texts.map { _ in [0.5, 0.5, 0.5, 0.5] } }
    }

    let replies = [CannedReply(intent: "yes", text: "Yes, that works for me."),
                   CannedReply(intent: "schedule", text: "Tuesday afternoon works for me."),
                   CannedReply(intent: "thanks", text: "Thanks, I will look into it.")]

    func testStatisticsCountEmailsNotOccurrences() {
        let statistics = ReplyWordStatistics(counting: ["Tuesday, Tuesday and Tuesday", "thanks", "Thanks for Tuesday"],
                                             words: ["tuesday", "thanks", "never"])
        XCTAssertEqual(statistics.documents, 3)
        XCTAssertEqual(statistics.frequencies, ["tuesday": 2, "thanks": 2])
    }

    func testSharedRareWordsDecideWhenTheSemanticScoreCannot() throws {
        let suggester = RetrievalReplySuggester(embedder: SameVectorEmbedder(), replies: replies)
        suggester.gatesIntents = false
        let email = "Would Tuesday afternoon work for the review?"
        XCTAssertEqual(Set(try suggester.rank(email).map(\.score)).count, 1, "without statistics: the semantic score alone, all equal")
        // "works", "for", "me" are in most emails; "tuesday" and "afternoon" in few.
        suggester.wordStatistics = ReplyWordStatistics(documents: 1_000, frequencies: [
            "yes": 400, "that": 900, "works": 300, "for": 990, "me": 950, "tuesday": 20, "afternoon": 15,
            "thanks": 500, "i": 990, "will": 800, "look": 300, "into": 600, "it": 990])
        let ranked = try suggester.rank(email)
        XCTAssertEqual(ranked.first?.text, "Tuesday afternoon works for me.")
        XCTAssertEqual(ranked.last?.text, "Thanks, I will look into it.", "no word shared: last")
        XCTAssertGreaterThan(ranked[0].score, ranked[1].score)
        let asking = ConversationMessage(emailId: 1, from: Address(name: "Ann", email: "ann@example.org"),
                                         date: Date(), body: email, subject: "Review")
        XCTAssertEqual(try suggester.suggest(for: asking).method, "retrieval-minilm+tfidf")
    }

    /// The lexical part reads only the email's prose: a word of its log lines ("… Done") is no
    /// reason to offer "All done."
    func testWordsOfALogDoNotCount() throws {
        let suggester = RetrievalReplySuggester(embedder: SameVectorEmbedder(), replies: [
            CannedReply(intent: "status", text: "Almost done."), CannedReply(intent: "thanks", text: "Thanks, I will check.")])
        suggester.gatesIntents = false
        suggester.wordStatistics = ReplyWordStatistics(documents: 1_000, frequencies: [
            "done": 5, "almost": 5, "thanks": 900, "i": 990, "will": 800, "check": 700])
        let body = """
            Why does apt hold back php when I upgrade? Any idea, thanks.

            Reading package lists... Done
            Building dependency tree... Done
            Reading state information... Done
            """
        let message = ConversationMessage(emailId: 1, from: Address(name: "Ann", email: "ann@example.org"), date: nil, body: body)
        XCTAssertEqual(try suggester.suggest(for: message).suggestions.first?.text, "Thanks, I will check.")
    }

    func testCommonWordsWeighLessThanRareOnes() throws {
        let suggester = RetrievalReplySuggester(embedder: SameVectorEmbedder(), replies: replies)
        suggester.gatesIntents = false
        // The email shares five words with the first reply ("yes that works for me") and four with
        // the second ("tuesday works for me"): counted alike, the first wins. When "tuesday" is in
        // few emails and the others in nearly all, the second does.
        suggester.wordStatistics = ReplyWordStatistics(documents: 1_000, frequencies: [
            "yes": 990, "that": 990, "works": 990, "for": 999, "me": 999, "tuesday": 5, "afternoon": 900])
        let ranked = try suggester.rank("Yes that works for me, does Tuesday?")
        XCTAssertEqual(ranked.first?.text, "Tuesday afternoon works for me.")
    }
}
