import Foundation
import MailModel
import ThreadInsights
import XCTest

/// `FactCheck` and the local model's guard (`LLMSummarizer.check`): pure logic, no model.
final class FactCheckTests: XCTestCase {
    let thread = [
        ConversationMessage(emailId: 1, from: Address(name: "Ann Lee", email: "ann.lee@example.com"),
                            to: [Address(name: "Bob Stone", email: "bob@example.com")], date: nil,
                            body: "Hi Bob,\nThe N310 build fails on 4/17 with UHD 4.6.0.0. It costs $1,500 to fix by Fri.\nAnn",
                            subject: "N310 build failure"),
        ConversationMessage(emailId: 2, from: Address(name: "Bob Stone", email: "bob@example.com"),
                            to: [Address(name: "Ann Lee", email: "ann.lee@example.com")], date: nil,
                            body: "I can look at it on Monday at 10:30. Carla may know more.", subject: "Re: N310 build failure"),
    ]

    func testWhatTheThreadSaysPasses() {
        let check = FactCheck(messages: thread)
        XCTAssertEqual(check.unsupported(in: "Ann Lee says the N310 build fails on 4/17 with UHD 4.6.0.0."), [])
        XCTAssertEqual(check.unsupported(in: "It costs 1500 dollars to fix by Friday; Bob looks at it Monday at 10:30."), [])
        XCTAssertEqual(check.unsupported(in: "Discussed: the build. The fix is planned. Carla may know more."), [])
        // A number inside a token of the thread ("17" of "4/17"), and an address's parts ("lee").
        XCTAssertEqual(check.unsupported(in: "It fails on the 17th; ann.lee wrote first."), [])
    }

    func testInventedNamesNumbersAndDatesAreCaught() {
        let check = FactCheck(messages: thread)
        XCTAssertEqual(check.unsupported(in: "Mike Jones said the build fails."), ["Mike", "Jones"])
        XCTAssertEqual(check.unsupported(in: "It costs $2,000 and fails on 4/18."), ["2000", "4/18"])
        XCTAssertEqual(check.unsupported(in: "Bob looks at it on Tuesday in March."), ["Tuesday", "March"])
        XCTAssertEqual(check.unsupported(in: "The fix ships with UHD 4.7."), ["4.7"])
        // Mid-sentence capitals are names even when common words: the thread has no "Summary".
        XCTAssertEqual(check.unsupported(in: "Ann wrote the Summary."), ["Summary"])
    }

    func testTheGuardAcceptsOnlyCheckedText() {
        let good = LLMSummarizer.check("- Ann Lee: the N310 build fails on 4/17.\n- Bob looks at it on Monday.", messages: thread, model: "m.gguf")
        XCTAssertEqual(good.verdict, .accepted)
        XCTAssertEqual(good.lines, ["Ann Lee: the N310 build fails on 4/17.", "Bob looks at it on Monday."])
        let invented = LLMSummarizer.check("1. Ann asked Dave to fix it by 5 June.", messages: thread, model: "m.gguf")
        XCTAssertEqual(invented.verdict, .rejected)
        XCTAssertEqual(invented.unsupported, ["Dave", "June", "5"])
        let looping = LLMSummarizer.check("Ann reported a build failure.\nAnn reported a build failure.", messages: thread, model: "m.gguf")
        XCTAssertEqual(looping.verdict, .rejected)
        XCTAssertEqual(looping.problem, "repeats a line")
        XCTAssertEqual(LLMSummarizer.check("  \n", messages: thread, model: "m.gguf").problem, "empty")
        XCTAssertEqual(LLMSummarizer.check("**Summary:**\n* Bob can look on Monday.", messages: thread, model: "m.gguf").lines,
                       ["Bob can look on Monday."])
    }

    /// A stand-in model: returns what it is told to, and keeps the prompt it got.
    final class ScriptedGenerator: TextGenerator, @unchecked Sendable {
        let name = "scripted.gguf"
        let reply: String
        var prompts: [String] = []
        init(_ reply: String) { self.reply = reply }
        func generate(system: String, user: String, maxTokens: Int) throws -> String {
            prompts.append(user)
            return reply
        }
    }

    func testThePromptHoldsTheCleanedMessagesFirstAndNewest() throws {
        let generator = ScriptedGenerator("- Bob looks at it on Monday at 10:30.")
        var summarizer = LLMSummarizer(generator: generator, promptCharacters: 260)
        summarizer.messageCharacters = 200
        let long = (3...8).map { i in
            ConversationMessage(emailId: Int64(i), from: Address(name: "Bob Stone", email: "bob@example.com"), date: nil,
                                body: "Update \(i): the build still fails on the N310.\n\n> quoted text that must not be sent\n")
        }
        let result = try summarizer.summarize(thread + long)
        XCTAssertEqual(result.verdict, .accepted)
        XCTAssertEqual(result.model, "scripted.gguf")
        let prompt = try XCTUnwrap(generator.prompts.first)
        XCTAssertTrue(prompt.hasPrefix("Subject: N310 build failure\n"), prompt)
        XCTAssertTrue(prompt.contains("[1] Ann Lee: The N310 build fails"), prompt)
        XCTAssertTrue(prompt.contains("[8] Bob Stone: Update 8"), prompt)
        XCTAssertTrue(prompt.contains("messages left out"), prompt)
        XCTAssertFalse(prompt.contains("quoted text"), prompt)
        XCTAssertFalse(prompt.contains("Hi Bob"), prompt)
    }
}
