import Foundation
import MailModel
@testable import ThreadInsights
import XCTest

/// A chosen question brings its answer from the reply (`ExtractiveSummarizer.withAnswers`).
final class AnswerPairingTests: XCTestCase {
    let ann = Address(name: "Ann", email: "ann@example.org")
    let bob = Address(name: "Bob", email: "bob@example.org")

    func message(_ id: Int64, _ from: Address) -> ConversationMessage {
        ConversationMessage(emailId: id, from: from, date: nil, body: "")
    }

    func candidate(_ message: Int, _ text: String) -> ExtractiveSummarizer.Candidate {
        ExtractiveSummarizer.Candidate(
            message: message,
            sentence: Sentence(text: text, start: 0, end: text.count, isQuestion: text.hasSuffix("?"), isRequest: false,
                               hasDateOrTime: false, kind: .prose, isProse: true),
            score: 0)
    }

    /// Ann asks (message 0), Ann adds something (1), Bob replies (2) with a greeting-like line and the answer.
    func testTheReplysClosestStatementJoinsTheQuestion() {
        let messages = [message(1, ann), message(2, ann), message(3, bob)]
        let candidates = [candidate(0, "Which firmware do you run?"),        // 0
                          candidate(0, "The radio drops samples."),          // 1
                          candidate(1, "Also the fan is loud."),             // 2
                          candidate(2, "Happy to help with this."),          // 3
                          candidate(2, "I run firmware 4.2 from March."),    // 4
                          candidate(2, "Did you try another cable?")]        // 5: a question, never an answer
        let vectors: [[Float]] = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [0.3, 0.2, 0.9], [0.9, 0.1, 0.1], [1, 0, 0]]
        // MMR chose the question and two others; the answer comes in, the last-chosen other goes (count 2 + 1).
        let result = ExtractiveSummarizer.withAnswers([0, 1, 2], candidates: candidates, vectors: vectors, messages: messages, count: 2)
        XCTAssertEqual(result, [0, 1, 4])
        // Without the question chosen, nothing changes.
        XCTAssertEqual(ExtractiveSummarizer.withAnswers([1, 2], candidates: candidates, vectors: vectors, messages: messages, count: 2), [1, 2])
    }

    /// A reply that says something else (below the floor), or only repeats a chosen sentence, answers nothing.
    func testAnUnrelatedOrRepeatedSentenceIsNoAnswer() {
        let messages = [message(1, ann), message(2, bob)]
        let candidates = [candidate(0, "When do you get your badge?"), candidate(0, "Talk to Peter about the filings."),
                          candidate(1, "We will be there."), candidate(1, "Talk to Peter about the filings.")]
        let vectors: [[Float]] = [[1, 0, 0], [0, 0, 1], [0.2, 0.98, 0], [0, 0, 1]]
        XCTAssertEqual(ExtractiveSummarizer.withAnswers([0, 1], candidates: candidates, vectors: vectors, messages: messages,
                                                        count: 2, floor: 0.36), [0, 1])
    }

    /// A question nobody else answered (the last message, or only its own author wrote after it) stays alone.
    func testAnUnansweredQuestionStaysAlone() {
        let messages = [message(1, bob), message(2, ann), message(3, ann)]
        let candidates = [candidate(0, "The build fails on ARM."), candidate(1, "Which compiler do you use?"), candidate(2, "Never mind, found it.")]
        let vectors: [[Float]] = [[1, 0], [0, 1], [0, 1]]
        XCTAssertEqual(ExtractiveSummarizer.withAnswers([1, 0], candidates: candidates, vectors: vectors, messages: messages, count: 2), [1, 0])
    }

    /// Several answered questions: the pairs MMR chose last give way so the summary keeps count + 1 lines at most.
    func testAnsweredPairsNeverMakeTheSummaryLongerThanOneLineMore() {
        let messages = [message(1, ann), message(2, bob), message(3, ann), message(4, bob)]
        let candidates = [candidate(0, "Is the board powered?"), candidate(1, "Yes it is powered."),
                          candidate(2, "Is the LED green?"), candidate(3, "The LED is red.")]
        let vectors: [[Float]] = [[1, 0], [0.8, 0.6], [0, 1], [0.6, 0.8]]
        let result = ExtractiveSummarizer.withAnswers([0, 2], candidates: candidates, vectors: vectors, messages: messages, count: 2)
        XCTAssertEqual(result, [0, 1], "the first pair stays, the second goes")
    }
}

/// A sentence someone else wrote earlier in the thread is a quote, whoever pastes it again.
final class UnmarkedQuoteTests: XCTestCase {
    func testASentencePastedFromAnEarlierMessageIsNotTheQuotersOwn() throws {
        let marcus = Address(name: "Marcus", email: "marcus@example.org")
        let page = Address(name: "Page", email: "page@example.org")
        let messages = [
            ConversationMessage(emailId: 1, from: page, date: nil, body: "Why does the build print timing reports for every module of the image?"),
            ConversationMessage(emailId: 2, from: marcus, date: nil,
                                body: "Those reports come from the FPGA image generation tools\nfrom the vendor. You can ignore them safely."),
            ConversationMessage(emailId: 3, from: page, date: nil,
                                body: "Those reports come from the FPGA image generation tools from the vendor.\n\nThanks, that explains the long build log I saw."),
        ]
        let summary = try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(messages)
        for point in summary.points where point.sentence.hasPrefix("Those reports") {
            XCTAssertEqual(point.source.author, "Marcus", "the words are Marcus's: \(point.text)")
        }
        // Page's third message offers only what Page wrote.
        XCTAssertTrue(ExtractiveSummarizer.isQuotedFromEarlier("Those reports come from the FPGA image generation tools from the vendor.",
                                                                message: 2, messages: messages,
                                                                folded: messages.map { .init(ExtractiveSummarizer.foldedText($0.body)) }))
        XCTAssertFalse(ExtractiveSummarizer.isQuotedFromEarlier("Thanks, that explains the long build log I saw.",
                                                                 message: 2, messages: messages,
                                                                 folded: messages.map { .init(ExtractiveSummarizer.foldedText($0.body)) }))
    }
}

/// What a sender repeats from message to message (a template, a reminder, an email sent twice) is a
/// candidate only where it first stood.
final class TemplateSentenceTests: XCTestCase {
    let system = Address(name: "Access Requests", email: "arsystem@example.org")
    let ann = Address(name: "Ann", email: "ann@example.org")

    func testASendersRepeatedSentencesAreCandidatesOnlyOnce() throws {
        let notice = { (days: Int, request: Int) in
            "This request has been pending your approval for \(days) days. Please open the link below to review and act upon it. "
                + "The resource of request \(request) was asked for by a member of the trading desk for access to the website."
        }
        let messages = [
            ConversationMessage(emailId: 1, from: system, date: nil, body: notice(3, 38420)),
            ConversationMessage(emailId: 2, from: system, date: nil, body: notice(5, 38421)),
            ConversationMessage(emailId: 3, from: ann, date: nil,
                                body: "Please open the link below to review and act upon it. I approved the request this morning."),
            ConversationMessage(emailId: 4, from: system, date: nil, body: notice(7, 38422)),
        ]
        let first = ExtractiveSummarizer.firstMessageBySender(messages: messages, cleaned: messages.map { MessageCleaner.clean($0.body) })
        XCTAssertEqual(first[ExtractiveSummarizer.templateKey("This request has been pending your approval for 12 days.",
                                                              sender: "ARsystem@example.org")]?.message, 0, "digits are one class, case folded")
        XCTAssertEqual(first[ExtractiveSummarizer.templateKey("This request has been pending your approval for 12 days.",
                                                              sender: "ARsystem@example.org")]?.messages, 3, "three different notices")
        XCTAssertEqual(first[ExtractiveSummarizer.templateKey("Please open the link below to review and act upon it.", sender: ann.email)]?.message, 2,
                       "another sender's words are their own")
        XCTAssertEqual(ExtractiveSummarizer.templateKey("Trouble viewing it? Visit http://example.com/l?u=ann@example.org now.", sender: nil),
                       ExtractiveSummarizer.templateKey("Trouble viewing it? Visit http://example.com/l?u=bob@example.org now.", sender: nil),
                       "a link is one class")
        let summary = try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(messages)
        let lines = summary.points.filter { $0.kind == .point }
        XCTAssertEqual(Set(lines.map(\.sentence)).count, lines.count, "no line twice: \(lines.map(\.text))")
        XCTAssertFalse(lines.contains { $0.source.author == "Access Requests" && $0.source.emailId != 1 }, "\(lines.map(\.text))")
        // Three different messages of one sender say it: a template's text, no candidate at all; said
        // in two, its first stands.
        XCTAssertFalse(lines.contains { $0.source.author == "Access Requests" }, "\(lines.map(\.text))")
        let twice = try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(Array(messages.prefix(3)))
        XCTAssertTrue(twice.points.contains { $0.kind == .point && $0.source.emailId == 1 }, "\(twice.points.map(\.text))")
    }

    /// A template's question in every notice waits on no one; the same email sent again still waits.
    func testNoWaitingOnForAQuestionTheSendersEarlierNoticeAsked() throws {
        let notice = { (amount: Int) in
            "Your deposit of $\(amount).00 to account 4431 was received and credited today. Need to make a deposit? Sign up for transfers online."
        }
        let repeated = [ConversationMessage(emailId: 1, from: system, to: [ann], date: nil, body: notice(500)),
                        ConversationMessage(emailId: 2, from: system, to: [ann], date: nil, body: notice(620)),
                        ConversationMessage(emailId: 3, from: system, to: [ann], date: nil, body: notice(750))]
        XCTAssertNil(try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(repeated).points.first { $0.kind == .waitingOn })
        // Asked once before, in other words around it: a person asking again.
        let followUp = [ConversationMessage(emailId: 1, from: ann, to: [system], date: nil, body: "Here is the draft of the lease. Any word on this?"),
                        ConversationMessage(emailId: 2, from: ann, to: [system], date: nil, body: "Just checking in again. Any word on this?")]
        XCTAssertNotNil(try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(followUp).points.first { $0.kind == .waitingOn })
        let resent = "Could you send me the signed copy of the lease before Friday? The landlord asked for it again today."
        let again = [ConversationMessage(emailId: 1, from: ann, to: [system], date: nil, body: resent),
                     ConversationMessage(emailId: 2, from: system, to: [ann], date: nil, body: "Which lease do you mean, the old one or the new one?"),
                     ConversationMessage(emailId: 3, from: ann, to: [system], date: nil, body: resent)]
        XCTAssertNotNil(try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(again).points.first { $0.kind == .waitingOn })
    }

    /// An offer of help or an attachment's presentation is no request anyone waits on; a real request
    /// in the same message is.
    func testAnOfferOfHelpIsNoRequest() throws {
        let offers = ["If you have any questions, please call me at x3-1411.", "Please let me know if you need anything else.",
                      "Please feel free to contact me.", "Attached please find the contracts for Nicor Gas.",
                      "Please see the attached file for details.", "Should you have any questions, please do not hesitate to call.",
                      "For other questions, please contact Jason at x5-3923.", "Please note that the office is closed on Monday.",
                      "Please click below for access to the weekly reports."]
        for offer in offers { XCTAssertFalse(MessageCleaner.makeSentence(offer, start: 0, end: offer.count).isRequest, offer) }
        XCTAssertFalse(MessageCleaner.makeSentence("Let me know if this doesn't make sense.", start: 0, end: 38).isRequest)
        // A question mark in an aside asks nothing; a question in parentheses does.
        XCTAssertFalse(MessageCleaner.makeSentence("The PPS distribution uses IDT (now named something else?)", start: 0, end: 57).isQuestion)
        XCTAssertTrue(MessageCleaner.makeSentence("(Did you try the 4.4 release?)", start: 0, end: 30).isQuestion)
        let asks = ["Please let me know if you can attend on Friday.", "Please find attached a form which I need you to fill in.",
                    "If anyone has any idea how to fix this, please let me know.", "Please review the attached product description."]
        for ask in asks { XCTAssertTrue(MessageCleaner.makeSentence(ask, start: 0, end: ask.count).isRequest, ask) }
        let bob = Address(name: "Bob Stone", email: "bob@example.org")
        let messages = [
            ConversationMessage(emailId: 1, from: bob, to: [ann], date: nil, body: "The outage report for the weekend is ready."),
            ConversationMessage(emailId: 2, from: ann, to: [bob], date: nil,
                                body: "Please review the outage report before Monday. If you have any questions, please call me."),
        ]
        let waiting = try XCTUnwrap(try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(messages).points.first { $0.kind == .waitingOn })
        XCTAssertEqual(waiting.sentence, "Please review the outage report before Monday.")
    }

    /// A condition whose only ask is to hear back, a list's way out, a greeting question and a
    /// newsletter's title-case heading wait on no one; a conditional request that asks for something does.
    func testConditionalOffersGreetingsAndHeadingsWaitOnNoOne() throws {
        let offers = ["If not please let me know.", "If there are any particular provisions that cause you concern please let me know.",
                      "If I or any of my organization can help in any way please let me know.",
                      "If you are ever in Denver, please give me a call (303-783-0857).",
                      "If you have any comments on the draft, please let me know.",
                      "However, if you'd rather not receive future e-mails of this sort from Amazon.com, please visit the Help page.",
                      "To add additional people to this distribution, or if this report has been sent to you in error, please contact Jason.",
                      "For any Purchase/Sale/Financial contract issues, please contact Bridgette Anderson at x33818."]
        for offer in offers { XCTAssertFalse(MessageCleaner.makeSentence(offer, start: 0, end: offer.count).isRequest, offer) }
        let asks = ["If so, would you email me the request together with the CP IDs?", "If possible, please let me know by Friday.",
                    "If you agree, please sign and return the letter.", "If you have time, please let me know your thoughts on the draft.",
                    "If you know how to fix this, please let me know."]
        for ask in asks { XCTAssertTrue(MessageCleaner.makeSentence(ask, start: 0, end: ask.count).isRequest, ask) }
        for greeting in ["How are you , how is everything over there?", "How was your trip to Houston?", "Hi Kay, how are you?"] {
            XCTAssertTrue(MessageCleaner.isPleasantry(greeting), greeting)
        }
        XCTAssertFalse(MessageCleaner.isPleasantry("How are you getting on with the contract we sent last week?"))
        XCTAssertTrue(MessageCleaner.isHeading("Did You Know?"))
        XCTAssertFalse(MessageCleaner.isHeading("Did you know?"))
        XCTAssertFalse(MessageCleaner.isHeading("Any update?"))
        XCTAssertFalse(MessageCleaner.isHeading("All: Ideas/comments/solutions?"))
        XCTAssertTrue(MessageCleaner.isHeading("Do You Yahoo!?"))
        XCTAssertFalse(MessageCleaner.isHeading("To What ?"))
        let bob = Address(name: "Bob Stone", email: "bob@example.org")
        let summarizer = ExtractiveSummarizer(embedder: WordHashEmbedder())
        for body in ["Here are the numbers for March. If not please let me know.", "Good to hear from you. How are you , how is everything over there?",
                     "The store opens on Monday. Did You Know?"] {
            let messages = [ConversationMessage(emailId: 1, from: bob, to: [ann], date: nil, body: "Do you have the numbers for March?"),
                            ConversationMessage(emailId: 2, from: ann, to: [bob], date: nil, body: body)]
            XCTAssertNil(try summarizer.summarize(messages).points.first { $0.kind == .waitingOn }, body)
        }
        let messages = [ConversationMessage(emailId: 1, from: bob, to: [ann], date: nil, body: "The contract went out on Monday."),
                        ConversationMessage(emailId: 2, from: ann, to: [bob], date: nil,
                                            body: "Thanks. If so, would you email me the signed copy together with the CP IDs?")]
        XCTAssertNotNil(try summarizer.summarize(messages).points.first { $0.kind == .waitingOn })
    }

    /// A reply that addresses someone by name waits on that person, not on whoever wrote last before.
    func testWaitingOnNamesThePersonTheMessageAddresses() throws {
        let jason = Address(name: "Jason Roth", email: "jroth@example.org")
        let cedric = Address(name: "Cédric Hannotier", email: "cedric@example.org")
        let marcus = Address(name: "Marcus Leech", email: "mleech@example.org")
        let messages = [
            ConversationMessage(emailId: 1, from: jason, to: [marcus], date: nil, body: "My B210 stopped showing up on USB after the update."),
            ConversationMessage(emailId: 2, from: cedric, to: [jason], date: nil, body: "Did you try another cable and another port?"),
            ConversationMessage(emailId: 3, from: marcus, to: [cedric, jason], date: nil,
                                body: "Jason: please send a note to support and ask for an RMA on your device."),
        ]
        let waiting = try XCTUnwrap(try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(messages).points.first { $0.kind == .waitingOn })
        XCTAssertEqual(waiting.waitingOn, ["Jason Roth"], waiting.text)
        XCTAssertNil(ExtractiveSummarizer.addressed("All,\nPlease send your timesheets.", question: "Please send your timesheets.")?.names)
        XCTAssertEqual(ExtractiveSummarizer.addressed("Hi Ian,\nDoes the output contain USB?", question: "Does the output contain USB?")?.names, ["Ian"])
        XCTAssertEqual(ExtractiveSummarizer.addressed("", question: "Lindy - Could you verify if POI #57096 is still valid?")?.names, ["Lindy"])
        XCTAssertEqual(ExtractiveSummarizer.addressed("", question: "Mark/Tana please add Nordic Power to the exhibit.")?.names, ["Mark", "Tana"])
        XCTAssertNil(ExtractiveSummarizer.addressed("Thanks, I got it.\nCould you resend the file?", question: "Could you resend the file?")?.names)
        XCTAssertNil(ExtractiveSummarizer.addressed("Yesterday, the meeting moved.", question: "Please could you confirm the new time?")?.names)
    }

    /// A message that asks someone by a name no participant has waits on that name as written; a
    /// reply to a list waits on the person whose words it quotes, not on whoever wrote last.
    func testWaitingOnAnUnlistedNameAndOnThePersonQuoted() throws {
        let kay = Address(name: "Kay Mann", email: "kay.mann@example.org")
        let sara = Address(name: "Sara Shackleton", email: "sara@example.org")
        let summarizer = ExtractiveSummarizer(embedder: WordHashEmbedder())
        let asked = [ConversationMessage(emailId: 1, from: sara, to: [kay], date: nil, body: "The new trading limits are in the attached memo."),
                     ConversationMessage(emailId: 2, from: kay, to: [sara], date: nil, body: "Anne, please communicate this to your group.")]
        let waiting = try XCTUnwrap(try summarizer.summarize(asked).points.first { $0.kind == .waitingOn })
        XCTAssertEqual(waiting.waitingOn, ["Anne"], waiting.text)
        // A short form of a participant's name is that participant.
        let short = [asked[0], ConversationMessage(emailId: 2, from: kay, to: [sara], date: nil, body: "Sar, can we get a draft of the memo this morning?")]
        XCTAssertEqual(try XCTUnwrap(try summarizer.summarize(short).points.first { $0.kind == .waitingOn }).waitingOn, ["Sara Shackleton"])
        // A word before a comma that opens a statement is no name: the rules above stand.
        let musing = [asked[0], ConversationMessage(emailId: 2, from: kay, to: [sara], date: nil, body: "Clearly, the memo is out of date. Could you send the new one?")]
        XCTAssertEqual(try XCTUnwrap(try summarizer.summarize(musing).points.first { $0.kind == .waitingOn }).waitingOn, ["Sara Shackleton"])
        XCTAssertEqual(ExtractiveSummarizer.addressed("Hmmm, know what?", question: "Hmmm, know what?")?.greeting, nil)
        XCTAssertEqual(ExtractiveSummarizer.addressed("Yves, surely there is a flag for that?", question: "Yves, surely there is a flag for that?")?.greeting, false)
        let list = Address(name: "Razor users", email: "razor-users@lists.example.org")
        let harri = Address(name: "Harri Haataja", email: "harri@example.fi")
        let matthias = Address(name: "Matthias Saou", email: "matthias@example.net")
        let peter = Address(name: "Peter Peltonen", email: "peter@example.fi")
        let thread = [
            ConversationMessage(emailId: 1, from: harri, to: [list], date: nil, body: "I made a dummy package that provides the library."),
            ConversationMessage(emailId: 2, from: matthias, to: [list], date: nil, body: "The new build is on the mirror now."),
            ConversationMessage(emailId: 3, from: peter, to: [list], date: nil,
                                body: "On Tue, 3 Sep 2002 10:12:01 +0300, Harri Haataja wrote:\n> I made a dummy package that provides the library.\n\nIs there really no nodeps kind of switch in apt-get?"),
        ]
        let quoted = try XCTUnwrap(try summarizer.summarize(thread).points.first { $0.kind == .waitingOn })
        XCTAssertEqual(quoted.waitingOn, ["Harri Haataja"], quoted.text)
        XCTAssertNil(ExtractiveSummarizer.repliedTo("No quote here.", among: [harri, matthias]))
        // A forward to a delegate who took no part yet waits on the delegate, not on whoever wrote before.
        let carl = Address(name: "Carl Tricoli", email: "carl@example.org")
        let kam = Address(name: "Kam Keiser", email: "kam@example.org")
        let forwarded = [
            ConversationMessage(emailId: 1, from: carl, to: [sara], date: nil, body: "When do the TXU contracts terminate?"),
            ConversationMessage(emailId: 2, from: sara, to: [kam], date: nil, body: "Can you handle this? Please let me know where we stand on this."),
        ]
        let delegate = try XCTUnwrap(try summarizer.summarize(forwarded).points.first { $0.kind == .waitingOn })
        XCTAssertEqual(delegate.waitingOn, ["Kam Keiser"], delegate.text)
    }

    /// Exchange's internal X.500 names are nobody a reader knows: "Waiting on" names the people.
    func testWaitingOnNamesNoExchangeInternalAddress() throws {
        let exchange = Address(name: nil, email: "/o=enron/ou=na/cn=recipients/cn=notesaddr/cn=a478079f-55e1f3b0@enron.com")
        let bob = Address(name: "Bob Stone", email: "bob@example.org")
        let messages = [
            ConversationMessage(emailId: 1, from: exchange, to: [ann], date: nil, body: "The database will be down on Saturday for maintenance."),
            ConversationMessage(emailId: 2, from: bob, to: [ann], date: nil, body: "Noted, the loads will be late that day."),
            ConversationMessage(emailId: 3, from: ann, to: [exchange, bob], date: nil, body: "Could you tell me when the pricing data will be back?"),
        ]
        let waiting = try XCTUnwrap(try ExtractiveSummarizer(embedder: WordHashEmbedder()).summarize(messages).points.first { $0.kind == .waitingOn })
        XCTAssertEqual(waiting.waitingOn, ["Bob Stone"], waiting.text)
    }
}
